# bash completion for iogap and iogap-probe (installed by meson into the
# bash-completion directory: completions load on first use of the command).
# shellcheck shell=bash

# run directories (holding a manifest.json) and repeat directories (a
# repeat.json) as they are; other directories with a slash, to descend into
_iogap_dirs() {
	local d
	for d in "$1"*/; do
		[ -d "$d" ] || continue
		if [ -f "${d}manifest.json" ] || [ -f "${d}repeat.json" ]; then printf '%s\n' "${d%/}"; else printf '%s\n' "$d"; fi
	done
}

# iogap run's options (iogap passthrough run takes them too)
_iogap_run_opts='--target --dir --force --vm-only --bare-only --accel --qemu --cache --aio --iothread
	--machine --smp --memory --kernel --initrd --timeout --boot-timeout --append
	--allow-destroy-data --ring-size --repeat --match-load --quiet --no-kernel-points
	--inject-delay-ns --passthrough --bare-run --domain --disk --uri'

# iogap passthrough run: its options, iogap run's, job files
_iogap_passthrough_run() {
	case $prev in
	--device) mapfile -t COMPREPLY < <(compgen -W 'nvme' -- "$cur"); return ;;
	--bare-run|--dir) mapfile -t COMPREPLY < <(compgen -d -- "$cur"); return ;;
	--target) mapfile -t COMPREPLY < <(compgen -W 'file: dev:' -- "$cur")
		  compopt -o nospace 2> /dev/null; return ;;
	--accel) mapfile -t COMPREPLY < <(compgen -W 'auto kvm tcg' -- "$cur"); return ;;
	--qemu) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return ;;
	--p50-within|--p99-within|--smp|--memory|--timeout|--boot-timeout|--append) return ;;
	esac
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "--device --p50-within --p99-within --help
			$_iogap_run_opts" -- "$cur")
	else
		mapfile -t COMPREPLY < <(compgen -f -X '!*.fio' -- "$cur"; compgen -d -S / -- "$cur")
	fi
}

_iogap() {
	local cur prev cmd opts
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	if [ "$COMP_CWORD" -eq 1 ]; then
		mapfile -t COMPREPLY < <(compgen -W 'run demo report compare import lint passthrough libvirt --version --help' -- "$cur")
		return
	fi
	cmd=${COMP_WORDS[1]}
	case $cmd in
	run)
		opts="$_iogap_run_opts --help"
		case $prev in
		--target) mapfile -t COMPREPLY < <(compgen -W 'file: dev: null: zns: rbd:' -- "$cur")
			  compopt -o nospace 2> /dev/null; return ;;
		--accel) mapfile -t COMPREPLY < <(compgen -W 'auto kvm tcg' -- "$cur"); return ;;
		--cache) mapfile -t COMPREPLY < <(compgen -W 'none writeback writethrough directsync unsafe' -- "$cur"); return ;;
		--aio) mapfile -t COMPREPLY < <(compgen -W 'native io_uring threads' -- "$cur"); return ;;
		--dir|--bare-run) mapfile -t COMPREPLY < <(compgen -d -- "$cur"); return ;;
		--passthrough) mapfile -t COMPREPLY < <(compgen -W 'nvme' -- "$cur"); return ;;
		--kernel|--initrd|--qemu) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return ;;
		--machine|--smp|--memory|--timeout|--boot-timeout|--append|--ring-size|--repeat|--inject-delay-ns)
			return ;;
		--domain) mapfile -t COMPREPLY < <(timeout 2 virsh -q list --name 2>/dev/null |
						    compgen -W "$(cat)" -- "$cur"); return ;;
		--disk|--uri) return ;;
		esac ;;
	demo)
		opts='--dir --runtime --accel --qemu --quiet --help'
		case $prev in
		--accel) mapfile -t COMPREPLY < <(compgen -W 'auto kvm tcg' -- "$cur"); return ;;
		--qemu) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return ;;
		--dir) mapfile -t COMPREPLY < <(compgen -d -- "$cur"); return ;;
		--runtime) return ;;
		esac ;;
	report)
		opts='--full --json --html --timing --pairs --help'
		case $prev in
		--json|--html|--pairs) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return ;;
		esac ;;
	compare)
		opts='--json --seed --boot --no-pool --help'
		case $prev in
		--json) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return ;;
		--seed|--boot) return ;;
		esac ;;
	import)
		opts='--dir --label --help'
		case $prev in
		--dir) mapfile -t COMPREPLY < <(compgen -d -- "$cur"); return ;;
		--label) mapfile -t COMPREPLY < <(compgen -W 'vm bare' -- "$cur"); return ;;
		esac ;;
	lint)
		opts='--ram --help'
		[ "$prev" = --ram ] && return ;;
	passthrough)
		if [ "$COMP_CWORD" -eq 2 ]; then
			mapfile -t COMPREPLY < <(compgen -W 'check run --help' -- "$cur")
			return
		fi
		opts='--domain --qemu-pid --device --root --guest --bare --vm --run --p50-within
		      --p99-within --force --json --help'
		if [ "${COMP_WORDS[2]}" = run ]; then
			_iogap_passthrough_run
			return
		fi
		case $prev in
		--root|--run) mapfile -t COMPREPLY < <(compgen -d -- "$cur"); return ;;
		--bare|--vm) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return ;;
		--domain|--qemu-pid|--device|--p50-within|--p99-within) return ;;
		esac ;;
	libvirt)
		if [ "$COMP_CWORD" -eq 2 ]; then
			mapfile -t COMPREPLY < <(compgen -W 'enable disable insert remove cleanup graph --help' -- "$cur")
			return
		fi
		opts='--uri --filter --disk --help'
		case $prev in
		--filter) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return ;;
		--uri|--disk) return ;;
		esac
		if [ "$COMP_CWORD" -eq 3 ] && [[ $cur != -* ]]; then
			# the domains libvirt knows, when virsh answers quickly
			mapfile -t COMPREPLY < <(timeout 2 virsh -q list --all --name 2>/dev/null |
						 compgen -W "$(cat)" -- "$cur")
			return
		fi ;;
	*)
		return ;;
	esac
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
		return
	fi
	# operands: job files for run, run directories for report/compare/lint,
	# fio outputs for import; directories to descend into
	case $cmd in
	run) mapfile -t COMPREPLY < <(compgen -f -X '!*.fio' -- "$cur"; compgen -d -S / -- "$cur") ;;
	report) mapfile -t COMPREPLY < <(_iogap_dirs "$cur") ;;
	compare|lint) mapfile -t COMPREPLY < <(_iogap_dirs "$cur"; compgen -f -- "$cur") ;;
	*) mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
	esac
	# no duplicates (compgen -f lists directories too); no space after a
	# directory to descend into
	mapfile -t COMPREPLY < <(printf '%s\n' "${COMPREPLY[@]}" | awk 'NF && !seen[$0]++')
	if [ ${#COMPREPLY[@]} = 1 ] && [[ ${COMPREPLY[0]} == */ ]]; then
		compopt -o nospace 2> /dev/null
	fi
}
complete -F _iogap iogap
