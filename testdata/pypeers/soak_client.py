"""The chaos soak's Python host (internal/testbed/soak): the Python SDK client (the `mcp` of the
venv it runs in), unpatched, calling each server through the watchdog's proxy.

    python soak_client.py --name CLIENT_NAME --seed N --max-gap-ms N NAME=URL...

Per server it opens one session and calls the echo tool after random pauses of 0.1 s to
--max-gap-ms, each with a text no other call uses ("py NAME N"), and prints one JSON line per
call as the soak's CallRecord: server, text, start, end (RFC 3339) and failure ("" or absent
when the echo came back). It never re-initializes on an error, as the SDK does not; only when
the SDK's own task group ends (its transport raised) does it connect again, as a host whose
client died would.
"""

import argparse
import json
import random
import sys
from contextlib import AsyncExitStack
from datetime import datetime, timezone

import anyio
from mcp import ClientSession, types
from mcp.client import streamable_http

CALL_TIMEOUT = 30  # seconds


def now():
    return datetime.now(timezone.utc).isoformat()


def record(server, text, start, failure):
    rec = {"server": server, "text": text, "start": start, "end": now()}
    if failure:
        rec["failure"] = " ".join(failure.split())[:300]
    print(json.dumps(rec), flush=True)


def echo_failure(res, text):
    failed = getattr(res, "is_error", None) or getattr(res, "isError", False)
    got = [getattr(c, "text", None) for c in res.content]
    return "" if not failed and got[:1] == [text] else "not the echo: " + str(got)[:200]


async def session_run(server, url, opts, rng, counter):
    """One session until the SDK's task group ends; returns to be connected again."""
    make = getattr(streamable_http, "streamable_http_client", None) or streamable_http.streamablehttp_client
    async with AsyncExitStack() as stack:
        streams = await stack.enter_async_context(make(url))
        info = types.Implementation(name=opts.name, version="1.0.0")
        session = await stack.enter_async_context(ClientSession(streams[0], streams[1], client_info=info))
        await session.initialize()
        while True:
            await anyio.sleep(rng.uniform(0.1, opts.max_gap_ms / 1000))
            counter[0] += 1
            text = f"py {server} {counter[0]}"
            start = now()
            try:
                with anyio.fail_after(CALL_TIMEOUT):
                    res = await session.call_tool("echo", {"text": text})
                record(server, text, start, echo_failure(res, text))
            except Exception as err:  # the call failed; the session is kept, as the SDK keeps it
                record(server, text, start, f"{type(err).__name__}: {err}")
            except BaseException:  # the SDK's task group ended under the call
                record(server, text, start, "the SDK's session ended under the call")
                raise


async def keep(server, url, opts, rng):
    counter = [0]
    while True:
        try:
            await session_run(server, url, opts, rng, counter)
        except BaseException as err:  # the transport died (proxy or server gone)
            if isinstance(err, anyio.get_cancelled_exc_class()):
                raise
            print(f"{server}: the SDK's session ended: {type(err).__name__}: {err}", file=sys.stderr, flush=True)
        await anyio.sleep(0.2)


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--name", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-gap-ms", type=int, required=True)
    ap.add_argument("servers", nargs="+", help="NAME=URL")
    opts = ap.parse_args()
    rng = random.Random(opts.seed)
    async with anyio.create_task_group() as tg:
        for spec in opts.servers:
            name, url = spec.split("=", 1)
            tg.start_soon(keep, name, url, opts, random.Random(rng.random()))


if __name__ == "__main__":
    anyio.run(main)
