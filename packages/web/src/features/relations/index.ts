export { RelationsPage } from './components/relations-page';
