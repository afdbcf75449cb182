"""azure-mgmt-resourcehealth (Debian's python3-azure) against the emulator's
service-health API over HTTPS, with a static bearer credential."""
import json
import sys
import time

from azure.core.credentials import AccessToken
from azure.mgmt.resourcehealth import MicrosoftResourceHealth

cfg = json.loads(sys.argv[1])


class StaticCredential:
    def get_token(self, *scopes, **kwargs):
        return AccessToken(cfg["token"], int(time.time()) + 3600)


client = MicrosoftResourceHealth(StaticCredential(), cfg["subscription"], base_url=cfg["management"], connection_verify=cfg["ca"])
events = list(client.events.list_by_subscription_id())
out = {
    "count": len(events),
    "names": sorted(e.name for e in events),
    "types": sorted({e.event_type for e in events}),
    "titles": [e.title for e in events][:3],
}
print(json.dumps(out))
