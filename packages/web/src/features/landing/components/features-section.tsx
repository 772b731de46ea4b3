import { ChartColumn, KeyRound, Network, Plug, Share2, Zap, type LucideIcon } from 'lucide-react';

interface Feature {
  icon: LucideIcon;
  title: string;
  description: string;
}

const FEATURES: Feature[] = [
  {
    icon: Share2,
    title: 'Knowledge graph storage',
    description:
      'Entities with types, metadata and observations, linked by typed relations. Memory with structure, not a pile of text.',
  },
  {
    icon: Plug,
    title: 'MCP native',
    description:
      'Speaks the Model Context Protocol over HTTP and stdio. Agents already set up for an MCP memory server switch by changing one connection.',
  },
  {
    icon: Zap,
    title: 'Real-time sync',
    description:
      'Every change streams over WebSocket, so each agent and teammate sees the graph update the moment it changes.',
  },
  {
    icon: Network,
    title: 'Graph visualisation',
    description:
      'Browse, search and explore memory visually, as a whole or around a single entity and its neighbours.',
  },
  {
    icon: KeyRound,
    title: 'API keys and access',
    description:
      'Named API keys with expiry and rolling, stored only as hashes. Revoke access without touching your agents’ code.',
  },
  {
    icon: ChartColumn,
    title: 'Usage analytics',
    description:
      'Operations, growth and plan usage at a glance, so you know what your agents remember and how often they ask.',
  },
];

export function FeaturesSection() {
  return (
    <section
      id="features"
      tabIndex={-1}
      aria-labelledby="features-title"
      className="mx-auto max-w-6xl px-4 py-16 outline-none sm:px-6 md:py-24"
    >
      <div className="max-w-2xl">
        <p className="text-sm font-semibold text-primary">Features</p>
        <h2 id="features-title" className="mt-2 text-3xl font-semibold tracking-tight">
          Everything an agent needs to remember
        </h2>
        <p className="mt-3 text-muted-foreground">
          One service for storing, connecting and recalling knowledge, shared by your agents and
          your team.
        </p>
      </div>
      <ul className="mt-10 grid gap-px overflow-hidden rounded-lg border border-border bg-border sm:grid-cols-2 lg:grid-cols-3">
        {FEATURES.map(({ icon: Icon, title, description }) => (
          <li key={title} className="bg-card p-6">
            <div className="flex size-9 items-center justify-center rounded-lg bg-primary-soft text-primary-soft-foreground">
              <Icon className="size-4" aria-hidden />
            </div>
            <h3 className="mt-4 text-sm font-semibold">{title}</h3>
            <p className="mt-2 text-sm leading-6 text-muted-foreground">{description}</p>
          </li>
        ))}
      </ul>
    </section>
  );
}
