const STEPS = [
  {
    title: 'Create your account',
    description: 'Sign up for free and create an API key for your agent from the dashboard.',
  },
  {
    title: 'Connect your agent',
    description:
      'Point your MCP client at Engram’s /mcp endpoint with the key, or call the REST API directly.',
  },
  {
    title: 'Your agent remembers',
    description:
      'Entities, observations and relations persist across sessions, ready to search and recall.',
  },
];

export function HowItWorksSection() {
  return (
    <section aria-labelledby="how-it-works-title" className="border-y border-border bg-surface">
      <div className="mx-auto max-w-6xl px-4 py-16 sm:px-6 md:py-24">
        <div className="max-w-2xl">
          <p className="text-sm font-semibold text-primary">How it works</p>
          <h2 id="how-it-works-title" className="mt-2 text-3xl font-semibold tracking-tight">
            Memory in three steps
          </h2>
        </div>
        <ol className="mt-10 grid gap-6 md:grid-cols-3">
          {STEPS.map((step, index) => (
            <li key={step.title} className="rounded-lg border border-border bg-card p-6">
              <span
                className="flex size-8 items-center justify-center rounded-full border border-primary/30 bg-primary-soft text-sm font-semibold text-primary-soft-foreground"
                aria-hidden
              >
                {index + 1}
              </span>
              <h3 className="mt-4 text-sm font-semibold">{step.title}</h3>
              <p className="mt-2 text-sm leading-6 text-muted-foreground">{step.description}</p>
            </li>
          ))}
        </ol>
      </div>
    </section>
  );
}
