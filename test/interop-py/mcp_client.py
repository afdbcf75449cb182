"""The protocol's Python SDK (`mcp`) against the emulator's protocol server at
one revision: resources (list, read, templates, a subscription and its update)
and prompts (list, get with arguments). argv: {"url", "revision", "adminUrl"}."""
import asyncio
import json
import sys

import urllib.request
from mcp import Client
from mcp.shared.exceptions import MCPError

cfg = json.loads(sys.argv[1])
NOTES = "emulator://notes/today"
STATELESS = cfg["revision"] == "2026-07-28"


def update(text):
    body = json.dumps({"text": text}).encode()
    req = urllib.request.Request(cfg["adminUrl"] + "/protocol/update-resource", data=body, headers={"content-type": "application/json"})
    urllib.request.urlopen(req, timeout=30).read()


async def main():
    out = {}
    updates = []

    async def on_message(message):
        root = getattr(message, "root", message)
        if getattr(root, "method", None) == "notifications/resources/updated":
            updates.append(root.params.uri)

    mode = "2026-07-28" if STATELESS else "legacy"
    async with Client(cfg["url"], mode=mode, message_handler=on_message, cache=None) as c:
        out["version"] = c.session.protocol_version
        out["resources"] = [r.uri for r in (await c.list_resources()).resources]
        out["titles"] = [r.title for r in (await c.list_resources()).resources]
        out["templates"] = [t.uri_template for t in (await c.list_resource_templates()).resource_templates]
        readme = await c.read_resource("emulator://docs/readme")
        out["readme"] = {"mimeType": readme.contents[0].mime_type, "starts": readme.contents[0].text.splitlines()[0]}
        out["user"] = json.loads((await c.read_resource("emulator://users/ada")).contents[0].text)
        try:
            await c.read_resource("emulator://users/nobody")
            out["missing"] = None
        except MCPError as e:
            out["missing"] = e.error.code
        prompts = await c.list_prompts()
        out["prompts"] = [[p.name, [a.name for a in p.arguments or []]] for p in prompts.prompts]
        got = await c.get_prompt("greeting", {"name": "Ada", "style": "formal"})
        out["greeting"] = got.messages[0].content.text
        try:
            await c.get_prompt("greeting", {})
            out["promptError"] = None
        except MCPError as e:
            out["promptError"] = e.error.code

        if STATELESS:
            async with c.listen(resource_subscriptions=[NOTES]) as sub:
                out["honored"] = list(sub.honored.resource_subscriptions or [])
                update("from python")
                async for event in sub:
                    updates.append(event.uri)
                    break
        else:
            await c.subscribe_resource(NOTES)
            # The SDK listens on the session's GET stream; updates until one arrives.
            for attempt in range(50):
                update(f"from python {attempt}")
                await asyncio.sleep(0.1)
                if updates:
                    break
            await c.unsubscribe_resource(NOTES)
        out["updates"] = updates[:1]
        out["notes"] = (await c.read_resource(NOTES)).contents[0].text.startswith("from python")
    print(json.dumps(out))


asyncio.run(main())
