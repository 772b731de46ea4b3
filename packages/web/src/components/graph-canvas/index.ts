/*
 * The graph canvas both graph screens draw with (/graph and the entity page):
 * the canvas itself (its scene in scene/, its layout in a Web Worker in
 * layout/), the GraphView it draws, and the side panels shown beside it.
 */
export { GraphCanvas, type GraphCanvasProps } from './graph-canvas';
export { DetailRow, NodeTypesLegend, Panel } from './graph-panels';
export {
  cutLabel,
  neighbourSet,
  nodeLabel,
  nodeRadius,
  OBSERVATION_TYPE,
  toGraphView,
  typeCounts,
  type GraphEdgeView,
  type GraphNodeView,
  type GraphView,
  type TypeCount,
} from './graph-view';
