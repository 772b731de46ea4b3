export { WebhooksSettingsPage } from './components/webhooks-settings-page';
