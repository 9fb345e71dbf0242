"""A plain Python MCP SDK client (the `mcp` version the venv pins, 1.x or 2.x), unpatched, for
the watchdog's proxy tests (healer/proxy): it connects once over Streamable HTTP and calls tools
on demand, and never reconnects by itself, as hosts built on the SDK do not (python-sdk #1676).

    python client.py --url URL [--name CLIENT_NAME]

Stdout, one line each, the protocol of ../tsservers/client.mjs:
    READY                once connected (initialize done)
    OK <json>            a call's result
    ERR <message>        a call's error, on one line
    BYE                  after `quit`
Stdin, one command a line, run in order: call <tool> [json-args] | quit (EOF is quit)
"""

import argparse
import json
import sys
from contextlib import AsyncExitStack

import anyio
from mcp import ClientSession, types
from mcp.client import streamable_http

CALL_TIMEOUT = 30  # seconds; the Go side waits 90


def one_line(s):
    return " ".join(str(s).split())


def transport(url):
    # 2.x and late 1.x: streamable_http_client; older 1.x: streamablehttp_client.
    make = getattr(streamable_http, "streamable_http_client", None) or streamable_http.streamablehttp_client
    return make(url)


async def call(session, line):
    parts = line.split(" ", 2)
    if parts[0] != "call" or len(parts) < 2:
        return "ERR unknown command " + one_line(parts[0])
    args = json.loads(parts[2]) if len(parts) > 2 else {}
    try:
        with anyio.fail_after(CALL_TIMEOUT):
            res = await session.call_tool(parts[1], args)
    except TimeoutError:
        return f"ERR no answer within {CALL_TIMEOUT}s"
    except Exception as err:  # what the SDK raises is what the test reads
        return f"ERR {type(err).__name__}: {one_line(err)}"
    body = one_line(res.model_dump_json(exclude_none=True))
    failed = getattr(res, "is_error", None) or getattr(res, "isError", False)  # 2.x, 1.x
    return ("ERR tool error " if failed else "OK ") + body


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--name", default="python-sdk-client")
    opts = ap.parse_args()
    async with AsyncExitStack() as stack:
        streams = await stack.enter_async_context(transport(opts.url))
        info = types.Implementation(name=opts.name, version="1.0.0")
        session = await stack.enter_async_context(ClientSession(streams[0], streams[1], client_info=info))
        await session.initialize()
        print("READY", flush=True)
        while True:
            line = (await anyio.to_thread.run_sync(sys.stdin.readline)).strip()
            if not line or line == "quit":
                break
            print(await call(session, line), flush=True)
    print("BYE", flush=True)


if __name__ == "__main__":
    anyio.run(main)
