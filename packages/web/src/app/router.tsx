import { createBrowserRouter, type RouteObject } from 'react-router';
import { LandingPage } from '@/features/landing';
import { PricingPage } from '@/features/pricing';
import { GuestOnly, RequireSession, UnknownRoute } from './guards';
import { LoadingScreen } from './loading-screen';
import { PublicLayout } from './public-layout';
import { RouteError } from './route-error';
import { SessionRoot } from './session-root';

/**
 * The route table of docs/product.md (Public pages, The signed-in app). The public pages ship in the first bundle; the
 * auth forms and the signed-in app load on first visit, so a visitor's
 * landing page does not wait for code it never runs.
 */
export const appRoutes: RouteObject[] = [
  {
    element: <SessionRoot />,
    errorElement: <RouteError />,
    HydrateFallback: LoadingScreen,
    children: [
      {
        element: <PublicLayout />,
        children: [
          { path: '/', element: <LandingPage /> },
          { path: '/pricing', element: <PricingPage /> },
        ],
      },
      {
        element: <GuestOnly />,
        children: [
          {
            path: '/login',
            lazy: async () => ({ Component: (await import('@/features/auth')).LoginPage }),
          },
          {
            path: '/signup',
            lazy: async () => ({ Component: (await import('@/features/auth')).SignupPage }),
          },
        ],
      },
      {
        // An invitation link: its preview for anyone, Accept once signed in (docs/product.md, Members).
        path: '/invitations/accept',
        lazy: async () => ({ Component: (await import('@/features/members')).InvitationPage }),
      },
      {
        // Where the server sends a browser whose app connection cannot go on (docs/connect.md).
        path: '/oauth/error',
        lazy: async () => ({ Component: (await import('@/features/oauth')).OAuthErrorPage }),
      },
      {
        element: <RequireSession />,
        children: [
          {
            // A centred card of its own, outside the app's navigation (docs/product.md, Consent).
            path: '/oauth/consent',
            lazy: async () => ({ Component: (await import('@/features/oauth')).ConsentPage }),
          },
          {
            lazy: async () => ({ Component: (await import('./shell/app-shell')).AppShell }),
            children: [
              {
                path: '/dashboard',
                lazy: async () => ({
                  Component: (await import('@/features/dashboard')).DashboardPage,
                }),
              },
              {
                path: '/entities',
                lazy: async () => ({
                  Component: (await import('@/features/entities')).EntitiesPage,
                }),
              },
              {
                path: '/entities/:entityId',
                lazy: async () => ({
                  Component: await (await import('@/features/entities')).loadEntityDetailPage(),
                }),
              },
              {
                path: '/search',
                lazy: async () => ({ Component: (await import('@/features/search')).SearchPage }),
              },
              {
                path: '/relations',
                lazy: async () => ({
                  Component: (await import('@/features/relations')).RelationsPage,
                }),
              },
              {
                path: '/duplicates',
                lazy: async () => ({
                  Component: (await import('@/features/duplicates')).DuplicatesPage,
                }),
              },
              {
                path: '/graph',
                lazy: async () => ({ Component: (await import('@/features/graph')).GraphPage }),
              },
              {
                path: '/billing',
                lazy: async () => ({ Component: (await import('@/features/billing')).BillingPage }),
              },
              {
                path: '/api-keys',
                lazy: async () => ({
                  Component: (await import('@/features/api-keys')).ApiKeysPage,
                }),
              },
              {
                path: '/settings',
                lazy: async () => ({
                  Component: (await import('@/features/settings')).SettingsPage,
                }),
              },
              {
                path: '/settings/members',
                lazy: async () => ({
                  Component: (await import('@/features/members')).MembersSettingsPage,
                }),
              },
              {
                path: '/settings/spaces',
                lazy: async () => ({
                  Component: (await import('@/features/settings')).SpacesSettingsPage,
                }),
              },
              {
                path: '/settings/webhooks',
                lazy: async () => ({
                  Component: (await import('@/features/webhooks')).WebhooksSettingsPage,
                }),
              },
              {
                path: '/settings/import-export',
                lazy: async () => ({
                  Component: (await import('@/features/import-export')).ImportExportPage,
                }),
              },
            ],
          },
        ],
      },
      { path: '*', element: <UnknownRoute /> },
    ],
  },
];

export function createAppRouter() {
  return createBrowserRouter(appRoutes);
}
