"""A shipping-label MCP server served by mcp-toolkit itself: an image result and progress.

Its one tool, ``shipping_label``, reports progress while it "prints" and returns the label as
a PNG next to a line of text, so a client sees both travel over MCP. Run it alone with
``python -m adapters.demo.labels_server`` (stdio), or let a pool start it from
:func:`adapters.demo.labels_server_config`.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import struct
import zlib
from typing import Annotated

from pydantic import Field

from toolkit import ToolContext, ToolRegistry, mcp_tool
from toolkit.result import Content, ImageContent, TextContent

__all__ = ["label_png", "main", "registry", "shipping_label"]

_WIDTH, _HEIGHT, _QUIET = 192, 64, 8
_STEPS = ("reading the parcel", "drawing the barcode", "encoding the image", "done")


def label_png(tracking_id: str) -> bytes:
    """A black-on-white barcode PNG (greyscale) whose bars depend on ``tracking_id``."""
    digest = hashlib.sha256(tracking_id.encode()).digest()
    bits = "".join(f"{b:08b}" for b in digest)[: (_WIDTH - 2 * _QUIET) // 2]
    row = bytearray(b"\xff" * _WIDTH)
    for i, bit in enumerate(bits):
        if bit == "1":
            x = _QUIET + 2 * i
            row[x : x + 2] = b"\x00\x00"
    raw = b"".join(b"\x00" + bytes(row) for _ in range(_HEIGHT))

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", _WIDTH, _HEIGHT, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


@mcp_tool(read_only=True)
async def shipping_label(
    tracking_id: Annotated[str, Field(pattern=r"^TRK-\d{4}$", description="e.g. TRK-1002")],
    context: ToolContext,
) -> list[Content]:
    """Print the shipping label of a parcel, as a PNG image.

    Reports progress in four steps while it works.
    """
    for step, message in enumerate(_STEPS, start=1):
        await asyncio.sleep(0.15)  # stands for real work
        await context.report_progress(step, len(_STEPS), message)
    image = base64.b64encode(label_png(tracking_id)).decode()
    return [
        TextContent(text=f"Label for {tracking_id} ({_WIDTH}x{_HEIGHT} PNG)."),
        ImageContent(data=image, mime_type="image/png"),
    ]


registry = ToolRegistry()
registry.register(shipping_label)


def main() -> None:
    """Serve the label tool over stdio until the client closes the pipe."""
    from adapters.mcp_server import build_server, run_stdio

    run_stdio(build_server(registry, name="labels", version="1.0"))


if __name__ == "__main__":
    main()
