/**
 * What was just done (a notice, announced politely) or why it was refused (an alert), at the top
 * of the page the action came back to: GOV.UK's notification banner and error message.
 */
export function Notification({ notice, error }: { notice?: string | undefined; error?: string | undefined }) {
  return (
    <>
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </>
  )
}
