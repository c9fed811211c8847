import type { ComponentChildren } from 'preact'

/** A part of a page under its own heading, which names it for assistive technology. */
export function Section({ id, title, children }: { id: string; title: string; children: ComponentChildren }) {
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  )
}
