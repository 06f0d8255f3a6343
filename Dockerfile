# mcp-toolkit MCP server: stateless streamable HTTP, uvicorn workers, one image per tool set.
#   docker build -t mcp-toolkit .
#   docker run -p 8000:8000 -e TOOLKIT_TARGET=adapters.demo.warehouse_app:registry \
#       -e MCP_TOKEN=s3cret -e TOOLKIT_TOKEN_ENV=MCP_TOKEN mcp-toolkit
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    TOOLKIT_HOST=0.0.0.0 \
    TOOLKIT_ALLOWED_HOSTS=* \
    WEB_CONCURRENCY=2 \
    PROMETHEUS_MULTIPROC_DIR=/tmp/toolkit-metrics

WORKDIR /app
COPY pyproject.toml README.md LICENSE ./
COPY toolkit ./toolkit
COPY adapters ./adapters
RUN pip install '.[mcp,cli,otel,metrics,postgres]' && useradd --create-home --uid 10001 toolkit
USER toolkit

EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2)"

# uvicorn's own workers (WEB_CONCURRENCY); SIGTERM lets calls in flight finish (up to 30 s).
# TOOLKIT_ALLOWED_HOSTS=* turns off the Host check: keep the container behind a proxy or load
# balancer that sets Host, or list your public host names instead.
# PROMETHEUS_MULTIPROC_DIR, emptied at each start, lets /metrics report the sum of all workers.
CMD ["sh", "-c", "rm -rf \"$PROMETHEUS_MULTIPROC_DIR\" && mkdir -p \"$PROMETHEUS_MULTIPROC_DIR\" && exec uvicorn --factory adapters.mcp_server:create_app --http adapters.mcp_server:BoundedHttpProtocol --limit-concurrency 4096 --timeout-keep-alive 5 --host 0.0.0.0 --port 8000 --workers ${WEB_CONCURRENCY} --timeout-graceful-shutdown 30 --timeout-worker-healthcheck 60"]
