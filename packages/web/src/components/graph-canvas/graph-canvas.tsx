import { Maximize, Minus, Plus } from 'lucide-react';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Spinner } from '@/components/ui/spinner';
import { cn } from '@/lib/cn';
import type { GraphNodeView, GraphView } from './graph-view';
import { createLayoutWorker } from './layout/create-layout-worker';
import { installGraphProbe } from './scene/graph-probe';
import { GraphScene, type LayoutState } from './scene/graph-scene';
import { ZOOM_STEP } from './scene/scene-input';

export interface GraphCanvasProps {
  graph: GraphView;
  /** CSS pixels: 600 on /graph, 400 on the entity screen (docs/product.md, Numbers). */
  height: number;
  /** Names the picture for assistive technology, e.g. 'Knowledge graph'. */
  label: string;
  selectedId?: string | null;
  /** A node held at the centre (the entity of the entity screen). */
  pinnedId?: string | null;
  onNodeActivate?: (node: GraphNodeView) => void;
  onBackgroundClick?: () => void;
  className?: string;
}

/**
 * Whether this build carries the canvas's probe for end-to-end specs and
 * benchmarks (scene/graph-probe.ts). Vite writes the value in at build time,
 * so a production build (the flag unset) drops the probe's code entirely.
 */
const GRAPH_PROBE = import.meta.env.VITE_GRAPH_PROBE === '1';

function prefersReducedMotion(): boolean {
  return window.matchMedia?.('(prefers-reduced-motion: reduce)').matches ?? false;
}

/**
 * The one graph canvas of both screens: force layout in a Web Worker, drawn on
 * a <canvas>, zoom 0.1×–4× and pan (wheel, drag, pinch, + − 0 keys), draggable
 * nodes, hover dimming, click (or arrow keys and Enter) to activate a node.
 */
export function GraphCanvas({
  graph,
  height,
  label,
  selectedId = null,
  pinnedId = null,
  onNodeActivate,
  onBackgroundClick,
  className,
}: GraphCanvasProps) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const sceneRef = useRef<GraphScene | null>(null);
  const zoomControlsRef = useRef<HTMLDivElement>(null);
  const initialHeight = useRef(height);
  const handlers = useRef({ onNodeActivate, onBackgroundClick });
  const [layoutState, setLayoutState] = useState<LayoutState>('empty');
  const [focused, setFocused] = useState<GraphNodeView | null>(null);

  useEffect(() => {
    handlers.current = { onNodeActivate, onBackgroundClick };
  }, [onNodeActivate, onBackgroundClick]);

  useEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas) return;
    const scene = new GraphScene({
      canvas,
      height: initialHeight.current,
      worker: createLayoutWorker(),
      reducedMotion: prefersReducedMotion(),
      overlay: zoomControlsRef.current,
      onNodeActivate: (node) => handlers.current.onNodeActivate?.(node),
      onBackgroundClick: () => handlers.current.onBackgroundClick?.(),
      onLayoutState: setLayoutState,
      onFocusNode: setFocused,
    });
    sceneRef.current = scene;
    const removeProbe = GRAPH_PROBE ? installGraphProbe(canvas, scene) : undefined;
    return () => {
      removeProbe?.();
      scene.destroy();
      sceneRef.current = null;
    };
  }, []);

  useEffect(() => {
    sceneRef.current?.setHeight(height);
  }, [height]);

  useEffect(() => {
    sceneRef.current?.setData(graph, pinnedId);
  }, [graph, pinnedId]);

  useEffect(() => {
    sceneRef.current?.setSelected(selectedId);
  }, [selectedId]);

  const edgeWord = graph.edges.length === 1 ? 'edge' : 'edges';
  const nodeWord = graph.nodes.length === 1 ? 'node' : 'nodes';
  return (
    <div className={cn('relative overflow-hidden', className)} style={{ height }}>
      <canvas
        ref={canvasRef}
        data-testid="graph-canvas"
        tabIndex={0}
        role="img"
        aria-label={`${label}: ${graph.nodes.length} ${nodeWord}, ${graph.edges.length} ${edgeWord}. Use the arrow keys to move between nodes and Enter to open one.`}
        className="block w-full cursor-grab touch-none outline-none focus-visible:ring-2 focus-visible:ring-ring focus-visible:ring-inset"
        style={{ height }}
      />
      <div
        ref={zoomControlsRef}
        className="absolute top-2 right-2 flex flex-col overflow-hidden rounded-lg border border-border bg-card/90 shadow-xs backdrop-blur"
      >
        <ZoomButton label="Zoom in" onClick={() => sceneRef.current?.zoomBy(ZOOM_STEP)}>
          <Plus aria-hidden />
        </ZoomButton>
        <ZoomButton label="Zoom out" onClick={() => sceneRef.current?.zoomBy(1 / ZOOM_STEP)}>
          <Minus aria-hidden />
        </ZoomButton>
        <ZoomButton label="Reset zoom" onClick={() => sceneRef.current?.resetZoom()}>
          <Maximize aria-hidden />
        </ZoomButton>
      </div>
      {layoutState === 'running' ? (
        <div className="pointer-events-none absolute bottom-2 left-2 flex items-center gap-1.5 rounded-md border border-border bg-card/90 px-2 py-1 text-xs text-muted-foreground shadow-xs">
          <Spinner className="size-3" />
          Arranging nodes…
        </div>
      ) : null}
      <p className="sr-only" aria-live="polite">
        {focused ? `${focused.name}, ${focused.type}` : ''}
      </p>
    </div>
  );
}

function ZoomButton({
  label,
  onClick,
  children,
}: {
  label: string;
  onClick: () => void;
  children: ReactNode;
}) {
  return (
    <button
      type="button"
      aria-label={label}
      title={label}
      onClick={onClick}
      className="flex size-8 cursor-pointer items-center justify-center border-b border-border text-muted-foreground transition-colors last:border-b-0 hover:bg-muted hover:text-foreground focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none focus-visible:ring-inset [&_svg]:size-4"
    >
      {children}
    </button>
  );
}
