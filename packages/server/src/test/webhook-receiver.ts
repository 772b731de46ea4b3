import type { WebhookEventBody } from '@engram/shared';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A local endpoint: records what it is sent and answers with the status `answer` picks. */
export class Receiver {
  readonly received: { headers: Record<string, string>; body: string; event: WebhookEventBody }[] =
    [];
  answer: (event: WebhookEventBody) => number = () => 200;
  /** Set, every answer waits for it (an endpoint that hangs); `waiting` counts those held. */
  hold: Promise<void> | undefined;
  waiting = 0;
  private server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      this.waiting += 1;
      await this.hold;
      this.waiting -= 1;
      const body = Buffer.concat(chunks).toString('utf8');
      const event = JSON.parse(body) as WebhookEventBody;
      this.received.push({ headers: request.headers as Record<string, string>, body, event });
      response.statusCode = this.answer(event);
      response.end(response.statusCode >= 400 ? 'receiver says no' : 'ok');
    });
  });
  url = '';

  async start() {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }
  types() {
    return this.received.map((r) => r.event.type);
  }
  close() {
    return new Promise((resolve) => this.server.close(resolve));
  }
}
