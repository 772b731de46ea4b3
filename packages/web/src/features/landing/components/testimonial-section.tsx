export function TestimonialSection() {
  return (
    <section
      aria-label="What customers say"
      className="mx-auto max-w-4xl px-4 py-16 sm:px-6 md:py-24"
    >
      <figure className="text-center">
        <blockquote className="text-xl leading-8 font-medium tracking-tight text-balance sm:text-2xl sm:leading-9">
          “We stopped re-explaining our codebase to our agents every morning. Engram keeps the
          context, and the graph view shows exactly what they know.”
        </blockquote>
        <figcaption className="mt-6 flex items-center justify-center gap-3">
          <span
            className="flex size-10 items-center justify-center rounded-full bg-primary-soft text-sm font-semibold text-primary-soft-foreground"
            aria-hidden
          >
            PR
          </span>
          <span className="text-left text-sm">
            <span className="block font-semibold">Priya Raman</span>
            <span className="block text-muted-foreground">Staff Engineer, Lattice Labs</span>
          </span>
        </figcaption>
      </figure>
    </section>
  );
}
