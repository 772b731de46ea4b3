const QUESTIONS = [
  {
    question: 'Is there a free trial?',
    answer:
      'Yes. Every paid plan starts with a 14-day free trial, and you don’t need a credit card to begin.',
  },
  {
    question: 'Can I change plans later?',
    answer:
      'Any time. Upgrades take effect immediately; downgrades take effect at the start of your next billing cycle.',
  },
  {
    question: 'What happens if I exceed my limits?',
    answer:
      'Requests over your plan’s limits are temporarily rate limited until your usage resets or you upgrade. Your stored memory is never deleted.',
  },
  {
    question: 'What counts as an operation?',
    answer:
      'Each successful read or write of your memory or API keys — queries, creates, updates and deletes — whether your agents make it over MCP, your code through the REST API, or your team in the app. Signing in, billing and settings don’t count.',
  },
];

export function PricingFaq() {
  return (
    <section aria-labelledby="faq-title">
      <h2 id="faq-title" className="text-xl font-semibold tracking-tight">
        Frequently asked questions
      </h2>
      <dl className="mt-6 grid gap-x-8 gap-y-6 md:grid-cols-2">
        {QUESTIONS.map(({ question, answer }) => (
          <div key={question}>
            <dt className="text-sm font-semibold">{question}</dt>
            <dd className="mt-1.5 text-sm leading-6 text-muted-foreground">{answer}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
