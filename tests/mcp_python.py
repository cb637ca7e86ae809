#!/usr/bin/env python3
"""engram mcp driven by the official MCP Python SDK (package `mcp`, 1.x or 2.x).

The Rust suite (tests/cli/mcp.rs) drives the server with rmcp's client; this
checks that the SDK most agents' tooling is written with speaks to it too:
the handshake, the tools, remember / recall / forget, keyed facts and the
context block, a scope that never leaks, bad arguments as tool errors, and a
clean exit when stdin closes.

    python3 tests/mcp_python.py [path/to/engram]     (.ci/run runs it)
"""
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ENGRAM = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/debug/engram")
FAILED = []


def attr(obj, snake, camel):
    """A field of an SDK object: snake_case in 2.x, camelCase in 1.x."""
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel)


def check(name, ok, detail=""):
    print(("ok    " if ok else "FAIL  ") + name + ("" if ok else f": {detail}"))
    if not ok:
        FAILED.append(name)


def env_for(home):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")}
    env["HOME"] = home
    env["XDG_DATA_HOME"] = os.path.join(home, ".local", "share")
    return env


def cli(vault, home, *args):
    out = subprocess.run([ENGRAM, "--vault", vault, *args], env=env_for(home),
                         capture_output=True, text=True, check=True)
    return out.stdout


async def session_checks(vault, home):
    params = StdioServerParameters(command=ENGRAM, args=["--vault", vault, "mcp", "--user", "ana"],
                                   env=env_for(home))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            init = await s.initialize()
            check("initialize names the server", attr(init, "server_info", "serverInfo").name == "engram")
            tools = {t.name: t for t in (await s.list_tools()).tools}
            check("the tools are listed",
                  {"remember", "recall", "show", "list", "forget", "consolidate", "prune"} <= set(tools),
                  sorted(tools))
            schema = attr(tools["recall"], "input_schema", "inputSchema")
            check("recall has an input schema", "query" in schema.get("properties", {}), schema)

            async def call(tool, args):
                r = await s.call_tool(tool, args)
                text = "\n".join(c.text for c in r.content if hasattr(c, "text"))
                return bool(attr(r, "is_error", "isError")), attr(r, "structured_content", "structuredContent"), text

            err, out, text = await call("remember", {"text": "I live in Lisbon and I work as a nurse."})
            check("remember extracts facts", not err and out and out["mutations"], text)
            err, out, text = await call("recall", {"query": "where does the user live", "k": 5})
            found = [r for r in (out or {}).get("results", []) if "Lisbon" in r["content"]]
            check("recall finds it", not err and found, text)
            check("recall serves only ana", all(r.get("user") == "ana" for r in out["results"]), out)
            err, out, text = await call("recall", {"query": "spare key"})
            check("bob's record is not recalled", not err and not any(
                "flowerpot" in r["content"] for r in out["results"]), text)
            err, _, text = await call("recall", {"query": "key", "user": "bob"})
            check("another user is refused", err and "ana" in text, text)
            bob = json.loads(cli(vault, home, "--json", "list", "--user", "bob"))["results"][0]["id"]
            err, _, text = await call("show", {"id": bob})
            check("bob's record is missing for ana's server", err and "no record" in text, text)
            err, _, text = await call("recall", {"query": "x", "k": "ten"})
            check("a wrong type is a tool error naming it", err and "k" in text, text)
            err, _, text = await call("forget", {"id": "no-such-record"})
            check("an unknown id is a tool error", err and "no record" in text, text)
            fact = found[0]["id"]
            err, out, text = await call("forget", {"id": fact})
            check("forget", not err and out["mutations"], text)
            err, out, text = await call("recall", {"query": "Lisbon"})
            check("forgotten, not recalled", not err and not any(
                "Lisbon" in r["content"] for r in out["results"]), text)
            err, _, text = await call("recall", {"query": "nurse", "format": "context"})
            check("recall format context is a block", not err and "## Facts" in text, text)
            err, out, text = await call("set", {"key": "editor", "value": "helix"})
            check("set", not err and out["value"] == "helix", text)
            err, out, text = await call("get", {"key": "editor"})
            check("get gives {key, value, id, updated}",
                  not err and set(out) == {"key", "value", "id", "updated"} and out["value"] == "helix", text)
            err, _, text = await call("get", {"key": "editor", "user": "bob"})
            check("get in another user's scope is refused", err and "helix" not in text, text)
            err, _, text = await call("get", {"key": "pager"})
            check("a key never set is a tool error", err and "never set" in text, text)
            # An agent's notes, kept as written, changes in ordinary words superseding.
            notes = ["The user is vegetarian and lives in Porto.", "User's partner Marco is a chef.",
                     "Ana prefers dark mode in every editor.", "Remember that the deploy key rotates monthly.",
                     "Thanks!"]
            err, out, text = await call("remember", {"facts": notes})
            kept = {m["content"] for m in (out or {}).get("mutations", []) if m.get("kind") == "semantic"}
            check("remember facts keeps each note in its words",
                  not err and {"The user is vegetarian.", "The user lives in Porto.",
                               "User's partner Marco is a chef.", "Ana prefers dark mode in every editor.",
                               "The deploy key rotates monthly."} <= kept, text)
            check("remember facts says why small talk is skipped",
                  any(x["why"] == "greeting or reaction" for x in out.get("skipped", [])), text)
            err, out, text = await call("remember", {"facts": ["The user moved to Braga."]})
            check("the move is an UPDATE", not err and any(
                m["op"] == "UPDATE" for m in out["mutations"]), text)
            err, out, text = await call("recall", {"query": "where does the user live"})
            live = sorted({r["content"] for r in (out or {}).get("results", [])
                           if "Porto" in r["content"] or "Braga" in r["content"]})
            check("a move in a note supersedes where the user lives", live == ["The user moved to Braga."], live)
            err, out, text = await call("recall", {"query": "what does Marco do"})
            check("a named person's note is found by the name",
                  not err and out["results"] and "Marco" in out["results"][0]["content"], text)
            err, _, text = await call("remember", {"facts": ["x"], "text": "y"})
            check("facts with text is a tool error", err and "facts" in text, text)
            err, _, text = await call("context", {"budget": 100})
            check("context is a block within its budget", not err and len(text) <= 400
                  and "tokens" in text, text)


def shutdown_check(vault, home):
    proc = subprocess.Popen([ENGRAM, "--vault", vault, "mcp"], env=env_for(home),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"}}}).encode() + b"\n")
    proc.stdin.flush()
    reply = json.loads(proc.stdout.readline())
    check("an older protocol revision is accepted",
          reply.get("result", {}).get("protocolVersion") == "2025-06-18", reply)
    proc.stdin.close()
    start = time.time()
    code = proc.wait(timeout=10)
    check("closing stdin ends the server with 0", code == 0, code)
    check("...promptly", time.time() - start < 5, time.time() - start)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        vault, home = os.path.join(tmp, "vault"), os.path.join(tmp, "home")
        os.makedirs(home)
        cli(vault, home, "-q", "capture", "--raw", "--user", "bob",
            "Bob keeps the spare key under the blue flowerpot")
        asyncio.run(session_checks(vault, home))
        shutdown_check(vault, home)
    print(f"{len(FAILED)} failed" if FAILED else "all passed")
    sys.exit(1 if FAILED else 0)


if __name__ == "__main__":
    main()
