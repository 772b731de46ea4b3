import { BookOpen } from 'lucide-react';
import { Link } from 'react-router';
import { Button } from '@/components/ui/button';

export function ClosingCtaSection() {
  return (
    <section
      aria-labelledby="closing-cta-title"
      className="mx-auto max-w-6xl px-4 pb-16 sm:px-6 md:pb-24"
    >
      <div className="rounded-lg bg-zinc-900 px-6 py-12 text-center text-white sm:px-12 dark:border dark:border-border dark:bg-card">
        <h2 id="closing-cta-title" className="text-2xl font-semibold tracking-tight sm:text-3xl">
          Give your agents a memory that lasts
        </h2>
        <p className="mx-auto mt-3 max-w-xl text-sm text-zinc-300 sm:text-base dark:text-muted-foreground">
          Start on the free plan in a minute. Upgrade when your agents outgrow it.
        </p>
        <div className="mt-8 flex flex-wrap justify-center gap-3">
          <Button asChild size="lg">
            <Link to="/pricing">Choose Your Plan</Link>
          </Button>
          <Button
            asChild
            size="lg"
            variant="outline"
            className="border-zinc-700 bg-transparent text-white hover:bg-zinc-800 dark:border-border dark:hover:bg-muted"
          >
            <a href="/docs">
              <BookOpen aria-hidden />
              View Documentation
            </a>
          </Button>
        </div>
      </div>
    </section>
  );
}
