export { DuplicatesPage } from './components/duplicates-page';
