import { ArrowLeft } from 'lucide-react';
import { Link } from 'react-router';
import { Button } from '@/components/ui/button';

/** Back to the entity list, above the entity page's title (also while it loads or fails). */
export function EntityBackLink() {
  return (
    <div>
      <Button asChild variant="ghost" size="sm" className="-ml-3">
        <Link to="/entities">
          <ArrowLeft aria-hidden />
          Back
        </Link>
      </Button>
    </div>
  );
}
