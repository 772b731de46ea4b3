export { PricingPage } from './components/pricing-page';
