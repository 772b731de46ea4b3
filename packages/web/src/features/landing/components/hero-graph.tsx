import { entityTypeColor } from '@engram/shared';

interface IllustrationNode {
  id: string;
  label: string;
  type: string;
  x: number;
  y: number;
}

const NODES: IllustrationNode[] = [
  { id: 'agent', label: 'Support Agent', type: 'product', x: 190, y: 150 },
  { id: 'customer', label: 'Dana Ortiz', type: 'person', x: 70, y: 55 },
  { id: 'company', label: 'Northwind', type: 'company', x: 320, y: 55 },
  { id: 'tech', label: 'PostgreSQL', type: 'technology', x: 335, y: 215 },
  { id: 'concept', label: 'Refund Policy', type: 'concept', x: 65, y: 245 },
  { id: 'event', label: 'Outage · May 3', type: 'event', x: 215, y: 280 },
];

const EDGES: [string, string, string][] = [
  ['customer', 'company', 'works_at'],
  ['agent', 'customer', 'assists'],
  ['agent', 'concept', 'follows'],
  ['company', 'tech', 'uses'],
  ['event', 'tech', 'affected'],
  ['agent', 'event', 'resolved'],
];

function nodeById(id: string): IllustrationNode {
  const node = NODES.find((candidate) => candidate.id === id);
  if (!node) throw new Error(`Unknown illustration node ${id}`);
  return node;
}

/** A static picture of a small knowledge graph, coloured like the real graph view. */
export function HeroGraph() {
  return (
    <svg
      viewBox="0 0 400 330"
      className="h-auto w-full"
      role="img"
      aria-label="A knowledge graph: an agent linked to a customer, her company, a policy, a technology and an event"
    >
      <g className="stroke-zinc-300 dark:stroke-zinc-700" strokeWidth="1.5">
        {EDGES.map(([from, to]) => {
          const a = nodeById(from);
          const b = nodeById(to);
          return <line key={`${from}-${to}`} x1={a.x} y1={a.y} x2={b.x} y2={b.y} />;
        })}
      </g>
      <g className="fill-zinc-500 dark:fill-zinc-400" fontSize="9" textAnchor="middle">
        {EDGES.map(([from, to, label]) => {
          const a = nodeById(from);
          const b = nodeById(to);
          return (
            <text key={`${from}-${to}-label`} x={(a.x + b.x) / 2} y={(a.y + b.y) / 2 - 4}>
              {label}
            </text>
          );
        })}
      </g>
      {NODES.map((node) => (
        <g key={node.id}>
          <circle
            cx={node.x}
            cy={node.y}
            r={node.id === 'agent' ? 16 : 11}
            fill={entityTypeColor(node.type)}
          />
          <circle
            cx={node.x}
            cy={node.y}
            r={node.id === 'agent' ? 22 : 16}
            fill="none"
            stroke={entityTypeColor(node.type)}
            strokeOpacity="0.25"
            strokeWidth="4"
          />
          <text
            x={node.x}
            y={node.y + (node.id === 'agent' ? 38 : 30)}
            textAnchor="middle"
            fontSize="11"
            fontWeight="500"
            className="fill-zinc-700 dark:fill-zinc-300"
          >
            {node.label}
          </text>
        </g>
      ))}
    </svg>
  );
}
