import type { DashboardRefusalCode } from '../../../app/dashboard/refusals.ts'

/**
 * Every word the dashboard shows in English. `fr.ts` has the same shape (the type checker holds
 * it to this one, and a test walks both): a missing key fails before a page could show it.
 * A sentence that names values is a function of them.
 */
export const en = {
  language: { code: 'en', name: 'English', other: 'Français', otherCode: 'fr' },
  common: {
    product: 'Sika dashboard',
    skipToContent: 'Skip to content',
    sandbox: 'Sandbox',
    live: 'Live',
    sandboxBanner: 'Sandbox: test data only. No real money moves here.',
    liveBanner: 'Live: real money.',
    signOut: 'Sign out',
    signedInAs: (name: string, role: string) => `Signed in as ${name} (${role})`,
    save: 'Save',
    cancel: 'Cancel',
    search: 'Search',
    next: 'Next page',
    first: 'First page',
    none: 'Nothing yet.',
    downloadCsv: 'Download CSV',
    yes: 'Yes',
    no: 'No',
    back: 'Back',
    apply: 'Apply',
    any: 'Any',
    from: 'From',
    to: 'To',
    when: 'When',
    status: 'Status',
    amount: 'Amount',
    actions: 'Actions',
    mode: 'Mode',
    switchTo: (mode: string) => `Switch to ${mode}`,
  },
  nav: {
    label: 'Main',
    home: 'Home',
    operations: 'Operations',
    balance: 'Balance',
    developers: 'Developers',
    team: 'Team',
    account: 'Account',
    audit: 'Audit log',
  },
  roles: {
    viewer: 'Viewer',
    support: 'Support',
    finance: 'Finance',
    developer: 'Developer',
    admin: 'Admin',
    owner: 'Owner',
  },
  kinds: {
    collect: 'Collect',
    disbursement: 'Disbursement',
    withdraw: 'Withdraw',
    recharge: 'Recharge',
    transfer: 'Transfer',
    refund: 'Refund',
  },
  operationsList: {
    phone: 'Phone',
    reference: 'Reference',
  },
  movements: { 'cash-in': 'Cash in', 'cash-out': 'Cash out', reversal: 'Reversal' },
  statuses: {
    pending: 'Pending',
    succeeded: 'Succeeded',
    failed: 'Failed',
    canceled: 'Canceled',
    error: 'Error',
  },
  signIn: {
    title: 'Sign in',
    email: 'Email',
    password: 'Password',
    submit: 'Sign in',
    codeTitle: 'Two-step verification',
    codeIntro: 'Enter the 6-digit code from your authenticator app, or one of your recovery codes.',
    code: 'Code',
    codeSubmit: 'Verify',
    signedOut: 'You are signed out.',
    sessionEnded: 'Your session has ended. Sign in again.',
  },
  invitation: {
    title: 'Join the dashboard',
    intro: (merchant: string, email: string, role: string) =>
      `You are invited to ${merchant}'s Sika dashboard as ${email}, with the ${role} role.`,
    name: 'Your name',
    password: 'Choose a password',
    passwordHint: (minimum: number) => `At least ${minimum} characters.`,
    submit: 'Accept the invitation',
    unusable:
      'This invitation cannot be used: it was used already, revoked, or it expired. Ask for a new one.',
  },
  enrol: {
    title: 'Set up your authenticator',
    intro:
      'Every member signs in with a code from an authenticator app. Scan this QR code with the app, or type the setup key.',
    qrAlt: 'QR code of your authenticator setup',
    setupKey: 'Setup key',
    code: 'The 6-digit code the app shows',
    submit: 'Confirm',
    recoveryTitle: 'Your recovery codes',
    recoveryIntro:
      'Each code signs you in once if you lose your phone. Keep them somewhere safe: they are shown only now.',
    continue: 'Continue to the dashboard',
  },
  home: {
    title: 'Home',
    balances: 'Balances',
    currency: 'Currency',
    balance: 'Balance',
    held: 'Held',
    available: 'Available',
    today: 'Today',
    kind: 'Kind',
    count: 'Count',
    latest: 'Latest operations',
    todayCounts: 'Operations started today, by status now',
    todayAmounts: 'Money moved today (succeeded movements)',
    movement: 'Movement',
    noBalance: 'No balance yet.',
  },
  // operations: the operations list, search and an operation's page.
  operations: {},
  // balance: movements and statements.
  balancePage: {},
  // developers: keys, webhook secrets, callback failures, test callbacks.
  developers: {},
  // team and account.
  team: {},
  account: {},
  // audit: the audit log.
  audit: {},
  errors: {
    forbiddenTitle: 'Not allowed',
    forbidden: 'Your role does not allow this. Ask an admin of your team if you need it.',
    csrfTitle: 'Please try again',
    csrf: 'This form expired or did not come from this dashboard. Go back, reload the page and try again.',
    notFoundTitle: 'Not found',
    notFound: 'There is nothing at this address.',
    failedTitle: 'Something went wrong',
    failed: 'The dashboard could not answer. Try again in a moment.',
  },
  refusals: {
    sign_in_failed: 'The email or the password is not right.',
    account_locked: (until: string) => `Too many failed attempts: signing in is locked until ${until}.`,
    address_throttled: (minutes: number) =>
      `Too many failed attempts from your network: try again in ${minutes} minutes.`,
    code_wrong: 'This code is not right, or it was used already. Wait for the next code and try again.',
    invitation_unusable:
      'This invitation cannot be used: it was used already, revoked, or it expired. Ask for a new one.',
    password_too_short: (minimum: number) => `The password needs at least ${minimum} characters.`,
    password_wrong: 'The current password is not right.',
    name_missing: 'Enter your name (at most 100 characters).',
    email_invalid: 'Enter a valid email address.',
    role_invalid: 'Choose one of the roles.',
    member_exists: 'A member already has this email.',
    member_unknown: 'There is no such member.',
    last_owner: 'The merchant keeps at least one owner: make another member owner first.',
    not_allowed: 'Your role does not allow this.',
  } satisfies Record<DashboardRefusalCode, unknown>,
}

type Widened<T> = T extends (...args: infer A) => string
  ? (...args: A) => string
  : T extends string
    ? string
    : { [K in keyof T]: Widened<T[K]> }

/** The shape every language's catalogue has. */
export type Messages = Widened<typeof en>
