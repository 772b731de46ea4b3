export { EntityDetailPage } from './components/entity-detail-page';
export { GraphPage } from './components/graph-page';
