import { ClosingCtaSection } from './closing-cta-section';
import { FeaturesSection } from './features-section';
import { HeroSection } from './hero-section';
import { HowItWorksSection } from './how-it-works-section';
import { TestimonialSection } from './testimonial-section';

export function LandingPage() {
  return (
    <>
      <title>Engram — Persistent Memory for AI Agents</title>
      <HeroSection />
      <FeaturesSection />
      <HowItWorksSection />
      <TestimonialSection />
      <ClosingCtaSection />
    </>
  );
}
