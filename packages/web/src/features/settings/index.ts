export { SettingsPage } from './components/settings-page';
export { SpacesSettingsPage } from './components/spaces-settings-page';
