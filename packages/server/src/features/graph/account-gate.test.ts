import { describe, expect, it } from 'vitest';
import { AccountGate } from './account-gate.js';

/** A promise and the hand that settles it. */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('AccountGate', () => {
  it('runs two writes of an account at once, the rest in arrival order as places free up', async () => {
    const gate = new AccountGate(5_000);
    const started: number[] = [];
    const finish = [deferred(), deferred(), deferred(), deferred()];
    const runs = finish.map((step, index) =>
      gate.run('a', async () => {
        started.push(index);
        await step.promise;
        return index;
      }),
    );
    await tick();
    expect(started).toEqual([0, 1]);
    finish[1]!.resolve();
    await tick();
    expect(started).toEqual([0, 1, 2]);
    finish[0]!.resolve();
    finish[2]!.resolve();
    finish[3]!.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    expect(started).toEqual([0, 1, 2, 3]);
  });

  it('keeps accounts apart, and frees a place when a write fails', async () => {
    const gate = new AccountGate(5_000);
    const hold = deferred();
    const first = gate.run('a', () => hold.promise);
    const second = gate.run('a', () => Promise.reject(new Error('refused')));
    let otherRan = false;
    await gate.run('b', async () => void (otherRan = true));
    expect(otherRan).toBe(true);
    await expect(second).rejects.toThrow('refused');
    expect(await gate.run('a', async () => 'next')).toBe('next');
    hold.resolve();
    await first;
  });

  it('gives up a wait longer than the limit as a timed-out statement, without running it', async () => {
    const gate = new AccountGate(20, 1);
    const hold = deferred();
    const first = gate.run('a', () => hold.promise);
    let ran = false;
    await expect(gate.run('a', async () => void (ran = true))).rejects.toMatchObject({
      code: '57014',
    });
    expect(ran).toBe(false);
    hold.resolve();
    await first;
    expect(await gate.run('a', async () => 'after')).toBe('after');
  });
});
