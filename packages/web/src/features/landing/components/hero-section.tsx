import { ArrowRight } from 'lucide-react';
import { Link } from 'react-router';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { HeroGraph } from './hero-graph';

/** 'Learn More' scrolls to the features and moves keyboard focus there too. */
function showFeatures() {
  const features = document.getElementById('features');
  features?.scrollIntoView();
  features?.focus({ preventScroll: true });
}

export function HeroSection() {
  return (
    <section className="relative overflow-hidden border-b border-border">
      <div
        className="pointer-events-none absolute inset-0 bg-[radial-gradient(ellipse_at_top,color-mix(in_oklab,var(--primary)_10%,transparent),transparent_65%)]"
        aria-hidden
      />
      <div className="relative mx-auto grid max-w-6xl items-center gap-12 px-4 py-16 sm:px-6 md:py-24 lg:grid-cols-[1.1fr_1fr]">
        <div>
          <Badge variant="accent">Built on the Model Context Protocol</Badge>
          <h1 className="mt-5 text-4xl font-semibold tracking-tight text-balance sm:text-5xl">
            Persistent Memory for AI Agents
          </h1>
          <p className="mt-5 max-w-xl text-base text-pretty text-muted-foreground sm:text-lg">
            Engram keeps what your agents learn as a knowledge graph of entities, observations and
            relations, so every session starts where the last one ended.
          </p>
          <div className="mt-8 flex flex-wrap gap-3">
            <Button asChild size="lg">
              <Link to="/pricing">
                Get Started Free
                <ArrowRight aria-hidden />
              </Link>
            </Button>
            <Button size="lg" variant="outline" onClick={showFeatures}>
              Learn More
            </Button>
          </div>
          <p className="mt-4 text-xs text-muted-foreground">
            Free plan forever · 14-day trial on paid plans · No credit card required
          </p>
        </div>
        <div className="rounded-lg border border-border bg-card p-4 shadow-sm">
          <div className="flex items-center justify-between gap-2 border-b border-border pb-3">
            <span className="truncate font-mono text-xs text-muted-foreground">
              memory://knowledge-graph
            </span>
            <Badge variant="success">
              6 entities<span className="hidden sm:inline"> · 6 relations</span>
            </Badge>
          </div>
          <HeroGraph />
        </div>
      </div>
    </section>
  );
}
