export { EntitiesPage } from './components/entities-page';
