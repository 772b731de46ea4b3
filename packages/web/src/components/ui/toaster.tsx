import { Toaster as Sonner } from 'sonner';

/** Toast notices: top right, gone after 5 seconds (spec §2, §9). */
export function Toaster() {
  return (
    <Sonner
      position="top-right"
      duration={5000}
      theme="system"
      richColors
      closeButton
      toastOptions={{ className: 'font-sans' }}
    />
  );
}
