import type { ComponentChildren } from 'preact'
import type { KitPage } from './page.ts'

/** The hidden CSRF field every form that changes anything carries. */
export function CsrfInput({ page }: { page: KitPage }) {
  return <input type="hidden" name="csrf" value={page.csrf ?? ''} />
}

/**
 * A step that changes something, on its own: what it does, in words the button points to, any
 * field it needs, and the one button. `danger` for what cannot be undone.
 */
export function ConfirmForm(props: {
  page: KitPage
  action: string
  /** The id of the intro, which the button is described by. */
  id: string
  intro?: string
  button: string
  tone?: 'danger' | 'secondary'
  children?: ComponentChildren
}) {
  return (
    <form method="post" action={props.action} class="inline">
      <CsrfInput page={props.page} />
      {props.intro && <p id={props.id}>{props.intro}</p>}
      {props.children}
      <button type="submit" class={props.tone} aria-describedby={props.intro ? props.id : undefined}>
        {props.button}
      </button>
    </form>
  )
}
