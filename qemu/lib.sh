# Shared helpers for the scripts in qemu/. Sourced, not run.
# shellcheck shell=bash

HDP_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HDP_BUILD=$HDP_ROOT/build
HDP_LOGS=$HDP_BUILD/logs

# The kernels the series is for, the default first: each is Debian's
# linux-source-<base>, with its series in kernel/<base>/ (patches/, the
# cover letter's paragraph for the base, config/ fragments of its own).
# KVER (or HDP_KVER) picks one; its tree is build/linux-<base> and its
# objects build/obj-<base>-<config>.
HDP_KVERS="6.12 6.1"
HDP_KVER=${KVER:-${HDP_KVER:-6.12}}
case " $HDP_KVERS " in
*" $HDP_KVER "*)
	case $HDP_KVER in
	*[!0-9.]*)
		echo "error: KVER=$HDP_KVER: one base, one of $HDP_KVERS" >&2
		exit 2
		;;
	esac
	;;
*)
	echo "error: KVER=$HDP_KVER: the series is for $HDP_KVERS" >&2
	exit 2
	;;
esac
export HDP_KVER
HDP_SERIES=$HDP_ROOT/kernel/$HDP_KVER
HDP_TREE=$HDP_BUILD/linux-$HDP_KVER
HDP_TARBALL=/usr/src/linux-source-$HDP_KVER.tar.xz

# The compiler cache lives outside the repository so that rebuilds, fresh
# clones and CI reruns on the same machine are fast.
export CCACHE_DIR=${HDP_CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/hdprotect/ccache}
export CCACHE_BASEDIR=$HDP_ROOT
export CCACHE_NOHASHDIR=1
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
# Reproducible builds: nothing in an object depends on when or where it
# was built, so ccache hits across clones.
export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026'
export KBUILD_BUILD_USER=hdprotect
export KBUILD_BUILD_HOST=qemu

_hdp_stage_start=0
_hdp_stage_name=
_hdp_t0=$(date +%s)

# stage NAME: print the previous stage's elapsed time, start a new one.
stage() {
	stage_end
	_hdp_stage_name=$1
	_hdp_stage_start=$(date +%s)
}

stage_end() {
	if [ -n "$_hdp_stage_name" ]; then
		printf '  %-28s %4ds\n' "$_hdp_stage_name" \
			$(($(date +%s) - _hdp_stage_start))
		_hdp_stage_name=
	fi
}

die() {
	stage_end
	echo "error: $*" >&2
	exit 1
}

# run_logged LOG CMD...: append the full output to LOG; on failure print
# its tail and stop.
run_logged() {
	local log=$1
	shift
	if ! "$@" >>"$log" 2>&1; then
		stage_end
		echo "---- last lines of $log ----" >&2
		tail -n 40 "$log" >&2
		die "'$*' failed; full output in $log"
	fi
}

# patch_files: the series as git am takes it, cover letter excluded.
patch_files() {
	[ -d "$HDP_SERIES/patches" ] || return 0
	find "$HDP_SERIES/patches" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' \
		! -name '0000-cover-letter.patch' | LC_ALL=C sort
}

patches_hash() {
	{ patch_files | while read -r p; do cat "$p"; done; } | sha256sum | cut -c1-16
}
