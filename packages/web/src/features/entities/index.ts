export { EntitiesPage } from './components/entities-page';

/**
 * The entity page, in a chunk of its own: it brings the graph canvas, which
 * the entity list (the rest of this index) never draws, so /entities does not
 * download it.
 */
export const loadEntityDetailPage = async () =>
  (await import('./components/entity-detail-page')).EntityDetailPage;
