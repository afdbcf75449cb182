'use strict';
// The floor of `lanyard api /user` over TLS (bench/startup.mjs times it beside the CLI and gh; not shipped): the
// least a Node program can do for the same answer, written by hand without Lanyard's code. Reads the profile's
// hosting.apiUrl from config.json, GET <api>/user with the token of FLOOR_TOKEN (Lanyard's comes from its 0600
// file, read as small as this) through node:https, the body to stdout.
// Usage: LANYARD_CONFIG_DIR=… FLOOR_TOKEN=… node bench/floor-api-user.cjs PROFILE
const fs = require('node:fs');

const config = JSON.parse(fs.readFileSync(`${process.env.LANYARD_CONFIG_DIR}/config.json`, 'utf8'));
const url = new URL(`${config.profiles[process.argv[2]]['hosting.apiUrl']}/user`);
require(url.protocol === 'https:' ? 'node:https' : 'node:http')
  .get(url, { headers: { authorization: `Bearer ${process.env.FLOOR_TOKEN}`, accept: 'application/vnd.github+json', 'user-agent': 'floor' } }, (res) => {
    res.on('data', (c) => fs.writeSync(1, c));
  })
  .end();
