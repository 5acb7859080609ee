# Pid files of the processes scripts/dev.sh starts, kept true: a pid file names a live process or
# does not exist. Sourced by scripts/dev.sh (and by test/scripts/dev-sh.e2e-spec.ts).
# shellcheck shell=bash

# Alive = exists and is not a zombie. A process killed after dev.sh exited is a zombie until its
# new parent reaps it, and `kill -0` succeeds on a zombie: that check alone said "already running".
pid_running() {
  local pid=$1 state
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  state=$(ps -o stat= -p "$pid" 2>/dev/null) || return 1
  [ -n "$state" ] && [[ $state != Z* ]]
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

pid_alive() { [ -f "$1" ] && pid_running "$(cat "$1")"; }

# Removes a pid file whose process is gone, so the file never names a dead process.
forget_dead() { if [ -f "$1" ] && ! pid_alive "$1"; then rm -f "$1"; fi; }

start_bg() { # name, then the command; output to $LOG_DIR/<name>.log, pid to $RUN_DIR/<name>.pid
  local name=$1; shift
  nohup "$@" >>"$LOG_DIR/$name.log" 2>&1 &
  echo $! >"$RUN_DIR/$name.pid"
}

wait_log() { # log file, from byte, text, pid file, seconds: until the text is logged or the process ends
  local deadline=$((SECONDS + $5))
  while [ $SECONDS -lt $deadline ]; do
    tail -c +"$2" "$1" 2>/dev/null | grep -q "$3" && return 0
    pid_alive "$4" || return 1
    sleep 0.2
  done
  return 1
}

stop_pidfile() {
  local file=$1 pid
  [ -f "$file" ] || return 0
  pid=$(cat "$file")
  if pid_running "$pid"; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do pid_running "$pid" || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$file"
}
