import { createRuntime } from '../runtime.js';
import { UsageError, type Command } from './command.js';
import { requireDatabase } from './space.js';

/** `engram plan set <email> <plan>`: the operator's plan change (docs/deploy.md "Plans"). */
export const plan: Command = {
  help: `  plan set <email> <plan>   Without a payment provider: move the account that email
                            owns to a plan (free, starter, pro, team, …-annual)`,
  async run(config, args) {
    const [action, email, planId, ...extra] = args;
    if (action !== 'set' || !email || !planId || extra.length > 0) {
      throw new UsageError('Usage: engram plan set <email> <plan>');
    }
    requireDatabase(config);
    const runtime = await createRuntime(config);
    try {
      const done = await runtime.billing.setPlanByOperator(email, planId);
      console.log(
        `${done.email}: ${done.from.name} (${done.from.id}) → ${done.to.name} (${done.to.id})`,
      );
    } finally {
      await runtime.close();
    }
  },
};
