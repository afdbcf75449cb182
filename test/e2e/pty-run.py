#!/usr/bin/env python3
"""Runs a command on a real pseudo-terminal, as a person at a terminal would.

Reads a JSON spec on stdin:
  argv        the command
  env         its environment
  cols, rows  the terminal size (default 100 x 30)
  waitFor     a regular expression; when the terminal output matches it...
  send        ...these bytes (hex) are typed, e.g. "03" for Ctrl-C
  sendAfter   more keys (hex), each typed `settle` seconds after the one before
  settle      seconds to wait after the match before typing (default 0.3)
  signal      instead of typing `send`, send this signal (e.g. "SIGTERM") to the command
  background  run the command as a background job of a job-control shell
              (its own process group, not the terminal's foreground one)
  timeout     seconds before giving up (default 30)

Prints JSON: exitCode, signal, output (all the terminal showed), modeBefore /
modeAfter (the terminal's termios attributes, as `stty -g` would compare
them), sentAt, exitAfterSendMs, stopped (the job was stopped by SIGTTOU /
SIGTTIN at some point).
"""
import fcntl
import json
import os
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time


def mode(fd):
    return repr(termios.tcgetattr(fd))


def main():
    spec = json.load(sys.stdin)
    cols, rows = spec.get("cols", 100), spec.get("rows", 30)
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    before = mode(slave)
    argv = spec["argv"]
    if spec.get("background"):
        # A job-control shell is the terminal's foreground; the command is its background job.
        script = 'set -m; "$@" & echo "PID=$!"; wait $!; echo "EXIT=$?"; sleep 0.2'
        argv = ["bash", "-c", script, "bash", *argv]

    def child_setup():
        os.setsid()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=spec.get("env"), preexec_fn=child_setup, close_fds=True)
    output = b""
    pattern = re.compile(spec["waitFor"]) if spec.get("waitFor") else None
    send = bytes.fromhex(spec["send"]) if spec.get("send") else None
    later = list(spec.get("sendAfter") or [])
    last_key_at = None
    matched_at = None
    sent_at = None
    deadline = time.monotonic() + spec.get("timeout", 30)
    stopped = False
    job_pid = None
    exit_at = None
    while time.monotonic() < deadline:
        r, _, _ = select.select([master], [], [], 0.05)
        if r:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                chunk = b""
            output += chunk
        text = output.decode("utf8", "replace")
        if spec.get("background") and job_pid is None:
            m = re.search(r"PID=(\d+)", text)
            if m:
                job_pid = int(m.group(1))
        if job_pid is not None and not stopped:
            try:
                with open(f"/proc/{job_pid}/stat") as f:
                    state = f.read().rsplit(")", 1)[1].split()[0]
                if state == "T":
                    stopped = True
                    os.kill(job_pid, signal.SIGKILL)
            except (FileNotFoundError, ProcessLookupError, IndexError):
                pass
        if pattern and matched_at is None and pattern.search(text):
            matched_at = time.monotonic()
        if send and matched_at is not None and sent_at is None and time.monotonic() - matched_at >= spec.get("settle", 0.3):
            if spec.get("signal"):
                proc.send_signal(getattr(signal, spec["signal"]))
            else:
                os.write(master, send)
            sent_at = time.monotonic()
            last_key_at = sent_at
        if sent_at is not None and later and time.monotonic() - last_key_at >= spec.get("settle", 0.3):
            os.write(master, bytes.fromhex(later.pop(0)))
            last_key_at = time.monotonic()
        if proc.poll() is not None:
            exit_at = exit_at or time.monotonic()
            if not r:
                break
    else:
        proc.kill()
        proc.wait()
    after = mode(slave)
    code = proc.returncode
    if spec.get("background"):
        m = re.search(r"EXIT=(\d+)", output.decode("utf8", "replace"))
        code = int(m.group(1)) if m else None
    json.dump(
        {
            "exitCode": code if code is None or code >= 0 else None,
            "signal": -code if code is not None and code < 0 else None,
            "output": output.decode("utf8", "replace"),
            "modeBefore": before,
            "modeAfter": after,
            "sent": sent_at is not None,
            "exitAfterSendMs": round((exit_at - sent_at) * 1000) if sent_at and exit_at else None,
            "stopped": stopped,
        },
        sys.stdout,
    )


main()
