#!/bin/sh
# Run by the nginx image before nginx starts (compose.yaml mounts it into
# /docker-entrypoint.d/). It writes the deployment example,
# deploy/nginx/paper-bets.conf, as the site with its upstream servers replaced
# by the instances' compose names and its listen address by a port Docker can
# publish: the example stays the one copy, edited on the same lines the
# benchmark edits (bench/lib/nginx.ts).
set -eu
example=${PAPER_BETS_SITE_EXAMPLE:-/etc/nginx/paper-bets.conf.example}
out=${PAPER_BETS_SITE_OUT:-/etc/nginx/conf.d/default.conf}
upstreams=${PAPER_BETS_UPSTREAMS:?name the instances, e.g. PAPER_BETS_UPSTREAMS="app1:3000 app2:3000"}
listen=${PAPER_BETS_LISTEN:-8080}

servers=''
for upstream in $upstreams; do servers="$servers    server $upstream;\\n"; done

awk -v servers="$servers" -v listen="$listen" '
  /^[ \t]*server [0-9.]+:[0-9]+;[ \t]*$/ { if (!done) printf "%s", servers; done = 1; next }
  /^[ \t]*listen [0-9.]+:[0-9]+;/ { sub(/listen [0-9.]+:[0-9]+;/, "listen " listen ";") }
  { print }
  END { if (!done) { print "no upstream \"server ADDRESS:PORT;\" lines in the example" > "/dev/stderr"; exit 1 } }
' "$example" >"$out.tmp" || { rm -f "$out.tmp"; exit 1; }
mv "$out.tmp" "$out"
