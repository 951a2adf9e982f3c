/**
 * Pushes in-process alerts to Alertmanager (`POST /api/v2/alerts`) and/or a generic webhook
 * (Alertmanager-webhook-shaped JSON, on changes only). Never throws: failures are counted.
 * @module
 */
import { errorMessage } from '../errors.ts';

/** One alert as both targets see it. */
export interface AlertNotice {
  status: 'firing' | 'resolved';
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** RFC 3339. */
  startsAt: string;
  /** RFC 3339; for firing alerts the time Alertmanager may resolve it without news. */
  endsAt: string;
  generatorURL: string;
}

/** Options of {@link AlertNotifier}; all optional. */
export interface AlertNotifierOptions {
  /** Alertmanager base URL (`http://host:9093`). */
  alertmanagerUrl?: string;
  /** Webhook URL receiving change notifications. */
  webhookUrl?: string;
  /** Per-request timeout, milliseconds. Default 5000. */
  timeoutMs?: number;
  /** Counts each request by target and outcome (`ok`, `error`). */
  onResult?: (target: 'alertmanager' | 'webhook', outcome: 'ok' | 'error', detail?: string) => void;
}

export class AlertNotifier {
  readonly #am: string | undefined;
  readonly #webhook: string | undefined;
  readonly #timeoutMs: number;
  readonly #onResult: AlertNotifierOptions['onResult'];
  readonly #pending = new Set<Promise<void>>();
  readonly #listeners: Array<(changed: readonly AlertNotice[]) => void> = [];

  constructor(options: AlertNotifierOptions = {}) {
    this.#am = options.alertmanagerUrl?.replace(/\/+$/, '');
    this.#webhook = options.webhookUrl;
    this.#timeoutMs = options.timeoutMs ?? 5_000;
    this.#onResult = options.onResult;
  }

  /** True when at least one target is configured or a listener observes the notices. */
  get enabled(): boolean {
    return this.#am !== undefined || this.#webhook !== undefined || this.#listeners.length > 0;
  }

  /**
   * Hands every evaluation's changed notices (firing, resolved) to `listener` too — the history keeps
   * them as firings. A listener that throws is ignored (it must not stop the others or the targets).
   */
  observe(listener: (changed: readonly AlertNotice[]) => void): void {
    this.#listeners.push(listener);
  }

  /**
   * Sends one evaluation's notices. Alertmanager gets every firing alert on every evaluation
   * (it expects re-sends) plus resolved ones; the webhook only gets `changed` notices.
   */
  send(all: readonly AlertNotice[], changed: readonly AlertNotice[]): void {
    if (changed.length > 0) {
      for (const listener of this.#listeners) {
        try {
          listener(changed);
        } catch {
          // the listener's own failure; the targets still get the notices
        }
      }
    }
    if (this.#am && all.length > 0) this.#post('alertmanager', `${this.#am}/api/v2/alerts`, all);
    if (this.#webhook && changed.length > 0) {
      const status = changed.some((n) => n.status === 'firing') ? 'firing' : 'resolved';
      this.#post('webhook', this.#webhook, {
        version: '4',
        status,
        receiver: 'ragwatch',
        groupLabels: {},
        commonLabels: {},
        commonAnnotations: {},
        externalURL: '',
        truncatedAlerts: 0,
        alerts: changed,
      });
    }
  }

  #post(target: 'alertmanager' | 'webhook', url: string, body: unknown): void {
    const p = fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(this.#timeoutMs),
    }).then(
      async (res) => {
        await res.body?.cancel();
        this.#onResult?.(target, res.ok ? 'ok' : 'error', res.ok ? undefined : `HTTP ${res.status}`);
      },
      (err: unknown) => this.#onResult?.(target, 'error', errorMessage(err)),
    );
    this.#pending.add(p);
    void p.finally(() => this.#pending.delete(p));
  }

  /** Waits for requests in flight. */
  async forceFlush(): Promise<void> {
    await Promise.allSettled([...this.#pending]);
  }
}
