# Sourced by the daemon benchmarks: usedspaced as users run it, socket-activated under the
# shipped, hardened unit in a real systemd user manager of an unprivileged user, on a
# machine whose PID 1 need not be systemd (what Tests/IntegrationTests/Support does for the
# tests, in shell). Root only. The hardening must be what users get, whether it makes the
# daemon cheaper or dearer.
#
#   us_start USER         a user manager for USER (made if missing), in a fresh home;
#                         sets US_UID, US_HOME, US_RUNTIME
#   us_units BIN ARGS...  the shipped units, ExecStart= BIN/usedspaced ARGS (a drop-in),
#                         the socket started
#   us_run CMD...         runs CMD as the user, in the user's environment
#   us_main_pid           the service's main PID (0 when it does not run)
#   us_stop               the manager, its cgroup and home (a trap runs it)

us_repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

us_start() {
    local user=$1
    id "$user" >/dev/null 2>&1 || useradd --create-home --shell /usr/sbin/nologin "$user"
    US_USER=$user
    US_UID=$(id -u "$user")
    local gid; gid=$(id -g "$user")
    US_HOME=$(mktemp -d "$(getent passwd "$user" | cut -d: -f6)/bench-XXXXXX")
    chown "$US_UID:$gid" "$US_HOME"; chmod 700 "$US_HOME"
    US_RUNTIME=/run/user/$US_UID
    rm -rf "$US_RUNTIME"; mkdir -p "$US_RUNTIME" "$US_HOME/.config/systemd/user"
    chown -R "$US_UID:$gid" "$US_RUNTIME" "$US_HOME/.config"; chmod 700 "$US_RUNTIME"
    # What a systemd host has, and unit sandboxing needs (made where missing, left in place).
    mkdir -p /run/systemd/system
    pgrep -x systemd-journal >/dev/null || {
        mkdir -p /run/systemd/journal
        setsid /usr/lib/systemd/systemd-journald >/dev/null 2>&1 &
        for _ in $(seq 50); do [[ -S /run/systemd/journal/stdout ]] && break; sleep 0.1; done
    }
    awk '$5 == "/run" { found = 1 } END { exit !found }' /proc/self/mountinfo || mount --bind /run /run
    awk '$5 == "/" && / shared:/ { found = 1 } END { exit !found }' /proc/self/mountinfo || mount --make-rshared /
    local ina=/run/systemd/inaccessible
    mkdir -p "$ina" /run/systemd/unit-root; chmod 700 /run/systemd/unit-root
    [[ -e $ina/dir ]] || mkdir -m 0 "$ina/dir"; [[ -e $ina/reg ]] || { : >"$ina/reg"; chmod 0 "$ina/reg"; }
    [[ -e $ina/fifo ]] || mkfifo -m 0 "$ina/fifo"; [[ -e $ina/chr ]] || mknod -m 0 "$ina/chr" c 0 0
    [[ -e $ina/blk ]] || mknod -m 0 "$ina/blk" b 0 0
    [[ -e $ina/sock ]] || { python3 -c "import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])" "$ina/sock"; chmod 0 "$ina/sock"; }
    US_CGROUPS=()
    local cg="user.slice/user-$US_UID.slice/user@$US_UID.service" base
    if [[ -e /sys/fs/cgroup/cgroup.controllers ]]; then
        US_CGROUPS=("/sys/fs/cgroup/$cg")
    else
        for base in /sys/fs/cgroup/systemd /sys/fs/cgroup/unified; do [[ -d $base ]] && US_CGROUPS+=("$base/$cg"); done
    fi
    US_ENV=(HOME="$US_HOME" USER="$user" LOGNAME="$user" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8
            XDG_RUNTIME_DIR="$US_RUNTIME" DBUS_SESSION_BUS_ADDRESS="unix:path=$US_RUNTIME/bus")
    # Into its delegated cgroup as root, then the user (setsid: a process group of its own).
    setsid sh -c 'for c in "$@"; do mkdir -p "$c" && chown -R '"$US_UID:$gid"' "$c" && echo $$ > "$c/cgroup.procs"; done
        exec setpriv --reuid='"$US_UID"' --regid='"$gid"' --init-groups env '"${US_ENV[*]}"' /usr/lib/systemd/systemd --user --log-target=journal' \
        sh "${US_CGROUPS[@]}" >"$US_HOME/manager.log" 2>&1 &
    US_MANAGER=$!
    for _ in $(seq 150); do [[ -S $US_RUNTIME/systemd/private ]] && break; sleep 0.1; done
    [[ -S $US_RUNTIME/systemd/private ]] || { echo "error: the user manager did not start: $(cat "$US_HOME/manager.log")" >&2; return 1; }
}

us_run() { setpriv --reuid="$US_UID" --regid="$(id -g "$US_USER")" --init-groups env "${US_ENV[@]}" "$@"; }

us_units() {
    local bin=$1; shift
    local units=$US_HOME/.config/systemd/user word line
    sed "s|@bindir@|$bin|" "$us_repo/systemd/usedspace.service" >"$units/usedspace.service"
    cp "$us_repo/systemd/usedspace.socket" "$units/"
    mkdir -p "$units/usedspace.service.d"
    line="ExecStart=$bin/usedspaced"
    for word in "$@"; do line+=" \"$word\""; done
    printf '[Service]\nExecStart=\n%s\n' "$line" >"$units/usedspace.service.d/bench.conf"
    chown -R "$US_UID" "$units"
    us_run systemctl --user daemon-reload
    us_run systemctl --user start usedspace.socket
}

us_main_pid() { us_run systemctl --user show -p MainPID --value usedspace.service; }

us_stop() {
    [[ -n ${US_MANAGER:-} ]] || return 0
    us_run systemctl --user exit >/dev/null 2>&1 || true
    for _ in $(seq 50); do kill -0 "$US_MANAGER" 2>/dev/null || break; sleep 0.1; done
    kill "$US_MANAGER" 2>/dev/null || true
    local c
    for c in "${US_CGROUPS[@]}"; do find "$c" -depth -type d -exec rmdir {} + 2>/dev/null || true; done
    rm -rf "$US_HOME" "$US_RUNTIME"
    US_MANAGER=
}
