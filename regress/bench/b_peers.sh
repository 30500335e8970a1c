#!/bin/sh
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# b_peers.sh BUILD: the same commands under sbx and under what a user
# would pick instead, side by side on this machine, for README.md's
# comparison table.
#
#   sbx      sbxctl run through a private sbx-monitor (built-in profile,
#            audit log on), as b_run.sh runs it
#   sbxwarm  the same with warm sandboxes (sbx.conf(5) warm): a profile
#            with the built-in one's set-up and "warm 2", so each run
#            after the first finds its sandbox built and only starts
#            the command
#   bwrap    bubblewrap as one wraps a command by hand: every namespace
#            (--unshare-all), --die-with-parent --new-session --clearenv
#            --cap-drop ALL, /usr, /etc/ssl/certs and /etc/alternatives
#            read-only with /bin, /lib, /lib64 as links into it (the
#            mounts of sbx's built-in profile), a fresh /proc, /dev and
#            /tmp
#   srt      Anthropic's sandbox-runtime CLI (npm @anthropic-ai/
#            sandbox-runtime), with a settings file that allows no
#            domain and no write: on Linux it runs bwrap, a seccomp
#            helper and its own proxies, started for each command
#   codex    OpenAI Codex's Linux sandbox (npm @openai/codex), `codex
#            sandbox -- CMD` (older releases: `codex sandbox linux --`,
#            `codex debug landlock --`; the first the installed CLI
#            accepts), its default read-only policy
#   refplan  the reference's provider isolation: bwrap with the launch
#            plan of interop.md §P5.2 (b_run.sh, b_provider.sh), each
#            program of the command bound with its libraries
#   direct   the command alone, the floor
#
# Two commands: /bin/true, and a small pipeline (/bin/sh -c 'echo ... |
# tr ... | wc -c').  Every tool runs each command RUNS times after WARM
# untimed runs, all tools interleaved run by run (regress/helpers/
# benchrun), so the load other work puts on the machine falls on all of
# them alike; median and p90 of each, and each median's ratio to sbx's.
# As root with a user CALLER (sbxtest, which scripts/check creates), the
# whole comparison runs a second time as that user: the deployment the
# peers are made for (an agent's own user), and sbx in identity caller.
#
# The bench installs what it needs: the Debian packages of scripts/deps's
# bench set (bwrap, socat and ripgrep for srt, npm), and the npm packages
# at the versions below into $BUILD/bench-peers (kept between runs).
# Before timing, each tool runs the pipeline once, which must print what
# it prints directly, and a probe, which must see other network
# interfaces than the host's (a network namespace of its own).  A tool
# that cannot be installed, does not run here, or fails either check is
# left out with a line "TOOL: unavailable: REASON", never silently.  (srt
# 0.0.83 declares node >= 22.12 but runs on this machine's node 20; as
# root it needs CAP_SETFCAP in the bounding set, its README says.)  A
# benchmark is not a test: nothing is asserted about speed.  It exits
# non-zero only when it could not measure sbx itself.
set -u
B=${1:-build}
top=$(pwd)
. "$top/regress/monitor.subr"
. "$top/regress/bench/plan.subr"
M=$top/$B/sbin/sbx-monitor
C=$top/$B/bin/sbxctl
R=$top/$B/regress/helpers/benchrun

RUNS=${RUNS:-30}		# timed runs of each tool and command
WARM=${WARM:-3}			# untimed runs of each first
SRT_VERSION=${SRT_VERSION:-0.0.83}	# @anthropic-ai/sandbox-runtime
CODEX_VERSION=${CODEX_VERSION:-0.171.0}	# @openai/codex
CALLER=${SBX_BENCH_CALLER:-sbxtest}
CACHE=$top/$B/bench-peers

PIPE='echo hello sandbox | /usr/bin/tr a-z A-Z | /usr/bin/wc -c'

die() { echo "b_peers: $*" >&2; exit 1; }

for f in "$M" "$C" "$R"; do
	[ -x "$f" ] || die "$f is missing (make tests)"
done

# ---- what the peers need from Debian ------------------------------------
if ! sh "$top/scripts/deps" bench; then
	echo "b_peers: scripts/deps bench could not install the bench set;" \
	    "the peers that need it will say so"
fi

D=$(mktemp -d /tmp/sbx-bench-peers.XXXXXX) || die "mktemp failed"
chmod 711 "$D"
monpid=
cleanup() {
	[ -n "$monpid" ] && kill "$monpid" 2>/dev/null && wait "$monpid"
	rm -rf "$D"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP PIPE

# unavail TOOL REASON: the visible line for a tool left out, on one line
# (REASON may be written over several).
unavail() {
	printf '%s: unavailable: %s\n' "$1" "$(printf '%s' "$2" | tr '\n' ' ')"
}

# ---- the npm peers, into the build tree's cache ---------------------------
# npm_peer PACKAGE VERSION BIN: installs PACKAGE@VERSION under $CACHE/BIN
# once (npm's own cache stays in the build tree too) and prints the path
# of its program BIN; or prints nothing and leaves the reason in
# $D/BIN.why.  Each peer has its own prefix, so that one failing does not
# take the other with it.
npm_peer() {
	pre=$CACHE/$3
	if ! command -v npm > /dev/null 2>&1; then
		echo "npm is missing (scripts/deps bench installs it as root)" \
		    > "$D/$3.why"
		return
	fi
	if [ ! -x "$pre/node_modules/.bin/$3" ] ||
	    [ "$(cat "$pre/version" 2>/dev/null)" != "$1@$2" ]; then
		echo "installing $1@$2 into $pre" >&2
		mkdir -p "$pre"
		if ! npm install --prefix "$pre" --cache "$CACHE/.npm" \
		    --no-audit --no-fund --no-save --loglevel=error "$1@$2" \
		    > "$D/$3.npm" 2>&1; then
			echo "npm install $1@$2 failed:" \
			    "$(grep -m 1 'npm error' "$D/$3.npm")" > "$D/$3.why"
			return
		fi
		echo "$1@$2" > "$pre/version"
	fi
	# node scripts, which the caller of the second pass runs too
	chmod -R go+rX "$pre"
	echo "$pre/node_modules/.bin/$3"
}
SRT=$(npm_peer @anthropic-ai/sandbox-runtime "$SRT_VERSION" srt)
CODEX=$(npm_peer @openai/codex "$CODEX_VERSION" codex)

# ---- sbx: a private monitor, as b_run.sh ----------------------------------
SOCK=$D/run/sbx.sock
cat > "$D/sbx.conf" <<EOF
socket "$SOCK"
user "nobody"
log-file "$D/audit.jsonl"
profile "warm" {
	env "LANG"
	env "TERM"
	warm 2
}
EOF
[ "$(id -u)" -eq 0 ] && id "$CALLER" > /dev/null 2>&1 &&
    echo "allow uid \"$CALLER\"" >> "$D/sbx.conf"
chmod 644 "$D/sbx.conf"
if ! sbx_monitor_start "$M" "$C" "$D/sbx.conf" "$SOCK" "$D/monitor.log"; then
	monpid=
	die "the monitor did not start"
fi
monpid=$sbx_monitor_pid

# ---- the reference launch plan's binds -----------------------------------
# The argv prefixes of the two bwrap tools, as files (one word a line),
# read back into "$@" by with_prefix.
BWRAP=$(command -v bwrap) || BWRAP=
if [ -n "$BWRAP" ]; then
	{
		printf '%s\n' "$BWRAP" --unshare-all --unshare-user \
		    --disable-userns --die-with-parent --new-session \
		    --clearenv --cap-drop ALL
		plan_binds /bin/true /aiwg/bin/true
		plan_binds /bin/sh /bin/sh
		plan_binds /usr/bin/tr /usr/bin/tr
		plan_binds /usr/bin/wc /usr/bin/wc
	} > "$D/plan.raw"
	{
		sed -n '1,/^ALL$/p' "$D/plan.raw"
		sed '1,/^ALL$/d' "$D/plan.raw" | LC_ALL=C sort -u -k1,1 |
		    while read -r tgt src; do
			printf '%s\n' --ro-bind "$src" "$tgt"
		done
		printf '%s\n' --tmpfs /tmp --proc /proc --dev /dev --chdir /tmp
	} > "$D/refplan.argv"
	{
		printf '%s\n' "$BWRAP" --unshare-all --die-with-parent \
		    --new-session --clearenv --setenv PATH /usr/bin:/bin \
		    --cap-drop ALL --ro-bind /usr /usr
		for l in bin lib lib64 sbin; do
			if [ -L "/$l" ]; then
				printf '%s\n' --symlink "$(readlink "/$l")" "/$l"
			elif [ -d "/$l" ]; then
				printf '%s\n' --ro-bind "/$l" "/$l"
			fi
		done
		for d in /etc/ssl/certs /etc/alternatives; do
			[ -d "$d" ] && printf '%s\n' --ro-bind "$d" "$d"
		done
		printf '%s\n' --proc /proc --dev /dev --tmpfs /tmp --chdir /tmp
	} > "$D/bwrap.argv"
fi

# srt: no domain allowed, nothing writable, nothing else changed.
echo '{"network":{"allowedDomains":[],"deniedDomains":[]},' \
    '"filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]}}' \
    > "$D/srt.json"
chmod 644 "$D/srt.json"

# codex: which sandbox command this release has.  Its helper links go
# under CODEX_HOME, which it refuses to put in the temporary directory,
# so TMPDIR points beside it.
CODEX_SUB=
if [ -n "$CODEX" ]; then
	h=$("$CODEX" sandbox --help 2>/dev/null)
	case "$h" in
	*"[COMMAND]..."*)	CODEX_SUB="sandbox" ;;
	*)
		if "$CODEX" sandbox linux --help > /dev/null 2>&1; then
			CODEX_SUB="sandbox linux"
		elif "$CODEX" debug landlock --help > /dev/null 2>&1; then
			CODEX_SUB="debug landlock"
		fi
		;;
	esac
fi

# quote_file FILE: FILE's lines as single-quoted shell words, for eval.
quote_file() {
	while IFS= read -r w; do
		printf "'%s' " "$(printf '%s' "$w" | sed "s/'/'\\\\''/g")"
	done < "$1"
}

# The network interfaces a command sees, with the shell's builtins only
# (the reference plan binds nothing else): a sandbox sees lo alone.
NETPROBE='while read -r a b; do case $a in *:) echo $a ;; esac; done < /proc/net/dev'
HOSTNET=$(/bin/sh -c "$NETPROBE" | sort | tr '\n' ' ')

PIPE_OUT=$(/bin/sh -c "$PIPE")

# argv_of LABEL PREFIX true|pipe: the quoted words that run the command
# under the tool: the reference plan's program is at /aiwg/bin/true, and
# srt takes the pipeline as its own -c string.
argv_of() {
	case "$1:$3" in
	refplan:true)	echo "$2 /aiwg/bin/true" ;;
	*:true)		echo "$2 /bin/true" ;;
	srt:pipe)	echo "${2% --} -c '$PIPE'" ;;
	*:pipe)		echo "$2 /bin/sh -c '$PIPE'" ;;
	esac
}

# pass AS WHO TAG: the whole comparison as one user.  AS is a command prefix
# (empty, or setpriv to CALLER), WHO names the user in the output.
pass() {
	as=$1 who=$2 tag=$3
	P=$D/$tag
	mkdir -p "$P/home" "$P/codex-home" "$P/codex-tmp"
	[ -n "$as" ] && chown -R "$CALLER" "$P"
	ENV="env -i PATH=/usr/bin:/bin HOME=$P/home LANG=C.UTF-8"
	ctl=$C
	if [ -n "$as" ]; then
		# sbxctl as the caller: a copy the caller may execute.
		mkdir -p "$D/c"
		cp "$C" "$D/c/sbxctl"
		chmod 755 "$D/c" "$D/c/sbxctl"
		ctl=$D/c/sbxctl
		chmod 777 "$D/run"
		chmod 666 "$SOCK"
	fi

	echo
	echo "--- as $(printf '%s' "$who" | tr '\n' ' ')"
	# tools: lines "label<TAB>argv prefix (quoted words)"
	: > "$P/tools"
	add() { printf '%s\t%s\n' "$1" "$2" >> "$P/tools"; }

	# check LABEL PREFIX: the tool runs the pipeline, which must print
	# what it prints directly, and a probe, which must exit 0 and see
	# other network interfaces than the host's (a namespace of its own;
	# the host's has more than lo).
	check() {
		out=$(eval "$as $ENV $(argv_of "$1" "$2" pipe)" \
		    2> "$P/$1.err" < /dev/null)
		if [ "$out" != "$PIPE_OUT" ]; then
			unavail "$1" "the pipeline printed \"$out\", not \"$PIPE_OUT\":
$(grep -v '^$' "$P/$1.err" | tail -n 1)"
			return 1
		fi
		ns=$(eval "$as $ENV $2 /bin/sh -c '$NETPROBE'" \
		    2> "$P/$1.err" < /dev/null) || {
			unavail "$1" "its probe failed: $(grep -v '^$' \
			    "$P/$1.err" | tail -n 1)"
			return 1
		}
		ns=$(printf '%s\n' "$ns" | grep ':$' | sort | tr '\n' ' ')
		if [ "$ns" = "$HOSTNET" ] || [ -z "$ns" ]; then
			unavail "$1" "ran, but saw the host's network
interfaces ($HOSTNET)"
			return 1
		fi
		return 0
	}

	p="'$ctl' -s '$SOCK' run --"
	check sbx "$p" || die "sbxctl run failed as $who: $(cat "$P/sbx.err")"
	if [ -n "$as" ]; then
		grep -q "as caller $(id -u "$CALLER"):" "$D/audit.jsonl" ||
		    die "the run as $CALLER was not in identity caller"
	fi
	add sbx "$p"
	p="'$ctl' -s '$SOCK' run -p warm --"
	check sbxwarm "$p" && add sbxwarm "$p"

	if [ -z "$BWRAP" ]; then
		unavail bwrap "bwrap is missing (scripts/deps installs bubblewrap)"
		unavail refplan "bwrap is missing"
	else
		p=$(quote_file "$D/bwrap.argv")
		check bwrap "$p --" && add bwrap "$p --"
		p=$(quote_file "$D/refplan.argv")
		check refplan "$p --" && add refplan "$p --"
	fi

	if [ -z "$SRT" ]; then
		unavail srt "$(cat "$D/srt.why")"
	elif ! command -v socat > /dev/null 2>&1 ||
	    ! command -v rg > /dev/null 2>&1; then
		unavail srt "socat or ripgrep is missing (scripts/deps bench)"
	else
		p="'$SRT' -s '$D/srt.json' --"
		check srt "$p" && add srt "$p"
	fi
	if [ -z "$CODEX" ]; then
		unavail codex "$(cat "$D/codex.why")"
	else
		if [ -z "$CODEX_SUB" ]; then
			unavail codex "codex $CODEX_VERSION has none of
'sandbox', 'sandbox linux', 'debug landlock'"
		else
			p="/usr/bin/env CODEX_HOME='$P/codex-home' TMPDIR='$P/codex-tmp'"
			p="$p '$CODEX' $CODEX_SUB --"
			check codex "$p" && add codex "$p"
		fi
	fi
	add direct ""
	if [ "$tag" != caller ]; then
		echo "what each runs (/bin/true; the pipeline likewise):"
		while IFS='	' read -r label pre; do
			printf '  %-8s %s\n' "$label" "$(argv_of "$label" "$pre" \
			    true | sed "s/'//g; s|$D|\$D|g; s|$top/||g")"
		done < "$P/tools"
	fi

	for cmd in true pipe; do
		case $cmd in
		true)	desc="/bin/true" ;;
		pipe)	desc="/bin/sh -c '$PIPE'" ;;
		esac
		spec=
		while IFS='	' read -r label pre; do
			spec="$spec ::: $label $(argv_of "$label" "$pre" $cmd)"
		done < "$P/tools"
		echo
		echo "$desc, $RUNS runs each after $WARM warm-up, interleaved:"
		if ! eval "$as $ENV '$R' -w '$WARM' '$RUNS' $spec" \
		    > "$P/$cmd.out" 2> "$P/$cmd.err"; then
			echo "b_peers: benchrun failed: $(tail -n 1 "$P/$cmd.err")"
			continue
		fi
		awk '
		function ms(us) { return sprintf("%.2f ms", us / 1000) }
		{ l[NR] = $1; med[$1] = $5; p90[$1] = $7 }
		END {
			printf "  %-8s %11s %11s %12s %14s\n", "", "median",
			    "p90", "median/sbx", "over direct"
			for (i = 1; i <= NR; i++)
				printf "  %-8s %11s %11s %12.2f %14s\n", l[i],
				    ms(med[l[i]]), ms(p90[l[i]]),
				    med[l[i]] / med["sbx"],
				    ms(med[l[i]] - med["direct"])
		}' "$P/$cmd.out"
	done
}

echo "tools: $("$C" -s "$SOCK" ping | cut -d" " -f1-2)," \
    "$([ -n "$BWRAP" ] && "$BWRAP" --version)," \
    "srt $([ -n "$SRT" ] && "$SRT" --version 2>/dev/null || echo -)," \
    "$([ -n "$CODEX" ] && "$CODEX" --version 2>/dev/null || echo codex -)," \
    "node $(node --version 2>/dev/null); $(nproc) cores," \
    "load average $(cut -d' ' -f1-3 /proc/loadavg)"
[ -n "$CODEX_SUB" ] &&
    echo "codex runs as: codex $CODEX_SUB -- CMD"
if [ "$(id -u)" -eq 0 ]; then
	pass "" "root (the sbx monitor drops to nobody; a root caller's
sandbox runs as nobody)" root
else
	pass "" "$(id -un)" user
fi
if [ "$(id -u)" -eq 0 ] && id "$CALLER" > /dev/null 2>&1; then
	as="setpriv --reuid=$(id -u "$CALLER") --regid=$(id -g "$CALLER")"
	pass "$as --clear-groups" "$CALLER (uid $(id -u "$CALLER"); sbx in
identity caller)" caller
elif [ "$(id -u)" -eq 0 ]; then
	echo "as a user: not measured (no user $CALLER; set SBX_BENCH_CALLER)"
fi
exit 0
