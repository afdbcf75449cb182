"""google-auth and cryptography against the emulator's echo service: the
published X.509 certificates load; an app platform ID token verifies against
them; a token signed with a service account's key file (the user-managed one
and the platform's default one) verifies against that account's certificates."""
import json
import sys
import time

import google.auth.transport.requests
import requests
from cryptography import x509
from google.auth import jwt
from google.oauth2 import id_token, service_account

cfg = json.loads(sys.argv[1])
session = requests.Session()
request = google.auth.transport.requests.Request(session)
out = {"subjects": {}, "accounts": {}}

for owner, url in cfg["x509"].items():
    doc = session.get(url, timeout=30).json()
    out["subjects"][owner] = [x509.load_pem_x509_certificate(pem.encode()).subject.rfc4514_string() for pem in doc.values()]

claims = id_token.verify_token(cfg["appToken"], request, audience=cfg["project"], certs_url=cfg["x509"][cfg["appSigner"]])
out["app"] = {k: claims.get(k) for k in ("iss", "aud", "email")}

for name, key_file in cfg["keyFiles"].items():
    creds = service_account.Credentials.from_service_account_info(key_file)
    now = int(time.time())
    token = jwt.encode(creds.signer, {"iss": creds.service_account_email, "sub": creds.service_account_email, "aud": "interop", "iat": now, "exp": now + 300})
    certs = session.get(key_file["client_x509_cert_url"], timeout=30).json()
    out["accounts"][name] = jwt.decode(token, certs=certs, audience="interop")["iss"]
print(json.dumps(out))
