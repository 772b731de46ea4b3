export { GraphPage } from './components/graph-page';
