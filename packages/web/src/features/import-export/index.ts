export { ImportExportPage } from './components/import-export-page';
