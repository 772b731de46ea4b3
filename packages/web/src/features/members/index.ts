export { InvitationPage } from './components/invitation-page';
export { MembersSettingsPage } from './components/members-settings-page';
