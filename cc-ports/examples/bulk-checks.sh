#!/usr/bin/env bash
# The bulk example's edges, run as a user would (CI's `examples` stage): a --duration loopback
# that stops early exits 0; the stack's own controllers run, another stack's are refused; a server prints the port it got for port 0, never overwrites an
# existing certificate (another server's) and removes its own on Ctrl-C; a missing certificate
# and a --bytes out of range are refused by name. Usage: bulk-checks.sh PATH/TO/bulk
set -euo pipefail
if [ $# -ne 1 ] || [ ! -x "$1" ]; then
  echo "usage: $0 PATH/TO/bulk (the built example)" >&2
  exit 2
fi
bulk=$(realpath "$1")
work=$(mktemp -d)
trap 'pkill -f "$bulk server" 2>/dev/null || true; rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAILED: $*" >&2; exit 1; }

"$bulk" loopback --controller karak --bytes 1000000000000 --duration 1s --send-window 262144 \
  >out.txt || fail "loopback --duration exited $?"
grep -q '^karak: [0-9]* bytes' out.txt || fail "loopback --duration printed no summary"

# The stack's own controllers, to compare a port with; another stack's are refused by name.
"$bulk" loopback --controller cubic --bytes 1000000 >cubic.txt || fail "loopback cubic exited $?"
grep -q '^cubic: 1000000 bytes' cubic.txt || fail "loopback cubic: $(cat cubic.txt)"
status=0
"$bulk" loopback --controller bbr3 >bbr3.txt 2>&1 || status=$?
[ "$status" -eq 2 ] && grep -q 'not a controller of quinn' bbr3.txt ||
  fail "--controller bbr3 on quinn: exit $status, $(cat bbr3.txt)"

"$bulk" server --listen 127.0.0.1:0 >server.txt 2>&1 &
# The server writes its certificate before it prints the port: wait for both, or the check races.
listening() { grep -Eq '^listening on 127\.0\.0\.1:[1-9][0-9]*;' server.txt; }
for _ in $(seq 100); do [ -s bulk-cert.der ] && listening && break; sleep 0.1; done
[ -s bulk-cert.der ] || fail "the server wrote no certificate"
listening || fail "port 0 printed as: $(cat server.txt)"
cp bulk-cert.der first.der
if "$bulk" server --listen 127.0.0.1:0 >second.txt 2>&1; then
  fail "a second server with the same --cert started"
fi
grep -q -- '--cert bulk-cert.der exists' second.txt || fail "second server: $(cat second.txt)"
cmp -s bulk-cert.der first.der || fail "the second server changed the first's certificate"
pkill -INT -f "$bulk server"
for _ in $(seq 50); do [ -e bulk-cert.der ] || break; sleep 0.1; done
[ ! -e bulk-cert.der ] || fail "the server left its certificate after Ctrl-C"

status=0
"$bulk" client --cert missing.der >client.txt 2>&1 || status=$?
[ "$status" -ne 0 ] && grep -q 'missing.der' client.txt || fail "missing certificate: $(cat client.txt)"
status=0
"$bulk" loopback --bytes 0 >bytes.txt 2>&1 || status=$?
[ "$status" -eq 2 ] && grep -q -- '--bytes' bytes.txt || fail "--bytes 0: exit $status, $(cat bytes.txt)"
echo "bulk example: 7 edges checked"
