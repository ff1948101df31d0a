// How a running server stops, the one way for `npm start` (server/main.ts) and the installed
// sandbox (server/sandbox.ts), as the public document's "Operating a deployment" says: the first
// SIGTERM or SIGINT drains (server/ops/drain.ts: /readyz 503, DRAIN_GRACE_MS of service, requests
// and deliveries in flight finished, store closed) and exits 0, or 1 when the drain fails; a
// second Ctrl-C while draining exits 1 at once, while the same stop delivered again is ignored
// (server/ops/stop-signals.ts). Optionally, the launcher's end
// (server/ops/launcher.ts) drains like a SIGTERM: the signal it was sent never reached us.
import { watchLauncher, type LauncherWatch } from './launcher.ts';
import { flushLogger, type Logger } from './logger.ts';
import { stopSignals, type StopSignal } from './stop-signals.ts';

export interface ShutdownOptions {
  /** RunningServer.drain (server/embedded.ts). */
  drain(): Promise<void>;
  logger: Logger;
  /** Also tells the person at the console, after the log line (the sandbox's banner lines). */
  say?: (text: string) => void;
  /** Drain when the launcher is gone, looking this often (ms); off when absent. */
  launcherCheckMs?: number;
}

export function drainOnShutdown(options: ShutdownOptions): void {
  const { logger } = options;
  let stopping = false;
  let watch: LauncherWatch | undefined;
  const exit = (code: number): never => {
    flushLogger(logger);
    process.exit(code);
  };
  const begin = async (fields: Record<string, unknown>, text: string) => {
    stopping = true;
    watch?.stop();
    logger.info(fields, text);
    options.say?.(`${text} (Ctrl-C again to stop at once)`);
    try {
      await options.drain();
    } catch (err) {
      logger.fatal({ event: 'drain_failed', err }, 'the drain failed');
      exit(1);
    }
    exit(0);
  };
  const signals = stopSignals();
  const onSignal = (signal: StopSignal) => {
    const action = signals.receive(signal, performance.now());
    // A signal after the launcher's end began the drain is that same stop, as a repeat is.
    if (action === 'ignore' || (action === 'drain' && stopping)) {
      logger.info({ event: 'signal_repeated', signal }, `${signal} again: already draining`);
      return;
    }
    if (action === 'exit') {
      logger.warn({ event: 'signal', signal }, `${signal} again: exiting without finishing the drain`);
      exit(1);
    }
    void begin({ event: 'signal', signal }, `${signal}: draining`);
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
  if (options.launcherCheckMs !== undefined)
    watch = watchLauncher(() => {
      if (!stopping)
        void begin(
          { event: 'launcher_gone', launcher_pid: watch?.launcherPid },
          'the process that started this server is gone: draining',
        );
    }, options.launcherCheckMs);
}
