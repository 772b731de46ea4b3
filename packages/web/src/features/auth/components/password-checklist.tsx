import { Check, Circle } from 'lucide-react';
import { cn } from '@/lib/cn';
import { PASSWORD_HINTS } from '../signup-rules';

/** Live hints under the password field; each turns green once met. */
export function PasswordChecklist({ password, id }: { password: string; id?: string }) {
  return (
    <ul id={id} aria-label="Password requirements" className="grid grid-cols-2 gap-x-4 gap-y-1.5">
      {PASSWORD_HINTS.map(({ label, test }) => {
        const met = test(password);
        return (
          <li
            key={label}
            data-met={met}
            className={cn(
              'flex items-center gap-1.5 text-xs transition-colors',
              met ? 'text-success' : 'text-muted-foreground',
            )}
          >
            {met ? (
              <Check className="size-3.5" aria-hidden />
            ) : (
              <Circle className="size-3.5" aria-hidden />
            )}
            <span>
              {label}
              <span className="sr-only">{met ? ' (met)' : ' (not yet)'}</span>
            </span>
          </li>
        );
      })}
    </ul>
  );
}
