import { Check, Copy } from 'lucide-react';
import { useEffect, useState } from 'react';
import { Button, type ButtonProps } from '@/components/ui/button';

const COPIED_FOR_MS = 2000;

interface CopyButtonProps extends Omit<ButtonProps, 'onClick' | 'children'> {
  value: string;
  /** Accessible name before copying, e.g. 'Copy key'. */
  label: string;
  /** Show the label as text beside the icon (icon only otherwise). */
  showLabel?: boolean;
}

/**
 * Copies `value` and says 'Copied' for two seconds. A refused clipboard is
 * only logged (docs/product.md, Failures): the value stays on screen to be selected by hand.
 */
export function CopyButton({
  value,
  label,
  showLabel = false,
  variant = 'outline',
  size,
  ...props
}: CopyButtonProps) {
  const [copied, setCopied] = useState(false);

  useEffect(() => {
    if (!copied) return undefined;
    const timer = window.setTimeout(() => setCopied(false), COPIED_FOR_MS);
    return () => window.clearTimeout(timer);
  }, [copied]);

  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
    } catch (error) {
      console.error('Could not copy to the clipboard', error);
    }
  }

  const text = copied ? 'Copied' : label;
  return (
    <Button
      variant={variant}
      size={size ?? (showLabel ? 'sm' : 'icon')}
      aria-label={showLabel ? undefined : text}
      title={showLabel ? undefined : text}
      onClick={() => void copy()}
      {...props}
    >
      {copied ? <Check className="text-success" aria-hidden /> : <Copy aria-hidden />}
      {showLabel ? text : null}
    </Button>
  );
}
