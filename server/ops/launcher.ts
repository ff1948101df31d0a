// Noticing that the process which started this one is gone. `npx domain-sales-sandbox` runs the
// bin through `sh -c` (npm exec), and that shell does not exec it: a SIGTERM to npx is forwarded
// to the shell alone, the shell dies of it, and the server is left running with a new parent
// (init or a subreaper), no signal ever reaching it. No portable API tells a process that its
// parent died (Linux's PR_SET_PDEATHSIG is out of Node's reach), so the parent is looked at now
// and then: a parent pid that changed (the orphan was adopted) or a parent no longer alive
// (systems that do not re-parent) means the launcher is gone.

/** Whether a process exists; EPERM means it does, owned by someone else. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface LauncherWatch {
  /** The launcher's pid when the watch began. */
  readonly launcherPid: number;
  stop(): void;
}

/**
 * Calls `onGone` once, within `everyMs` of the launcher's end. The timer never keeps the process
 * alive; a process without a parent to watch (pid 1's child of none, ppid 0) watches nothing.
 */
export function watchLauncher(onGone: () => void, everyMs: number): LauncherWatch {
  const launcherPid = process.ppid;
  if (launcherPid <= 1) return { launcherPid, stop: () => {} };
  const timer = setInterval(() => {
    if (process.ppid === launcherPid && alive(launcherPid)) return;
    clearInterval(timer);
    onGone();
  }, everyMs);
  timer.unref();
  return { launcherPid, stop: () => clearInterval(timer) };
}
