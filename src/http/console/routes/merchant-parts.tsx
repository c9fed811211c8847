import type { MerchantFile, MerchantMemberSummary } from '../../../app/console/merchant-actions.ts'
import { modes, sideKindNames } from '../../../domain/kinds.ts'
import type { LimitRow } from '../../../domain/merchant-controls.ts'
import { countries, currencies } from '../../../domain/money.ts'
import { milliToPercentage } from '../../../domain/pricing.ts'
import type { AuditEntry } from '../../../store/repositories/audit-log.ts'
import type { FeeRow } from '../../../store/repositories/catalogue.ts'
import type { BalanceView } from '../../../store/repositories/ledger.ts'
import {
  type Column,
  ConfirmForm,
  CsrfInput,
  Section,
  showInstant,
  showMoney,
  Table,
} from '../../pages/kit/index.ts'
import { type ConsolePage, consoleAllows } from '../layout.tsx'
import { merchantWordsOf } from '../messages/merchants.ts'

type Props = { page: ConsolePage; file: MerchantFile }

const pathOf = (file: MerchantFile, action: string) =>
  `/console/merchants/${encodeURIComponent(file.merchant.id)}/${action}`

/** The actions of the reader's role, and nothing for a role that has none. */
export function MerchantActions({ page, file }: Props) {
  const words = merchantWordsOf(page.locale)
  const payouts = consoleAllows(page, 'payouts')
  const status = consoleAllows(page, 'merchants')
  if (!payouts && !status) return null
  const suspended = file.merchant.status === 'suspended'
  return (
    <Section id="actions" title={words.actions}>
      {payouts &&
        (file.payoutsPaused ? (
          <ConfirmForm
            page={page}
            action={pathOf(file, 'resume')}
            id="resume-intro"
            intro={words.resumeIntro}
            button={words.resume}
          />
        ) : (
          <ConfirmForm
            page={page}
            action={pathOf(file, 'pause')}
            id="pause-intro"
            intro={words.pauseIntro}
            button={words.pause}
            tone="danger"
          >
            <label>
              {words.pauseReason}
              <input name="reason" maxLength={500} required />
            </label>
          </ConfirmForm>
        ))}
      {status && (
        <ConfirmForm
          page={page}
          action={pathOf(file, suspended ? 'activate' : 'suspend')}
          id="status-intro"
          intro={suspended ? words.activateIntro : words.suspendIntro}
          button={suspended ? words.activate : words.suspend}
          tone={suspended ? undefined : 'danger'}
        />
      )}
    </Section>
  )
}

/** Its limits per mode and currency; risk's form sets one mode and currency's. */
export function MerchantLimits({ page, file }: Props) {
  const words = merchantWordsOf(page.locale)
  const amount = (minor: number | null, currency: string) =>
    minor === null ? words.noLimit : showMoney(page, minor, currency)
  const columns: Column<LimitRow>[] = [
    { header: words.mode, cell: (row) => words.modes[row.mode] },
    { header: words.currency, rowHeader: true, cell: (row) => row.currency },
    { header: words.maxAmount, numeric: true, cell: (row) => amount(row.maxAmountMinor, row.currency) },
    {
      header: words.dailyPayoutLimit,
      numeric: true,
      cell: (row) => amount(row.dailyPayoutLimitMinor, row.currency),
    },
  ]
  return (
    <Section id="limits" title={words.limits}>
      <Table
        page={page}
        columns={columns}
        rows={file.limits}
        rowKey={(row) => `${row.mode}-${row.currency}`}
        empty={words.limitsNone}
      />
      {consoleAllows(page, 'limits') && (
        <form method="post" action={pathOf(file, 'limits')} class="stack">
          <CsrfInput page={page} />
          <p id="limits-intro">{words.setLimitsIntro}</p>
          <ModeAndCurrency page={page} />
          <label>
            {words.maxAmount}
            <input name="maxAmount" inputMode="decimal" />
          </label>
          <label>
            {words.dailyPayoutLimit}
            <input name="dailyPayoutLimit" inputMode="decimal" />
          </label>
          <button type="submit" aria-describedby="limits-intro">
            {words.setLimits}
          </button>
        </form>
      )}
    </Section>
  )
}

/** A form's mode and currency choices, the currency optionally "all" (an empty value, first). */
function ModeAndCurrency({ page, orAll = false }: { page: ConsolePage; orAll?: boolean }) {
  const words = merchantWordsOf(page.locale)
  return (
    <>
      <label>
        {words.mode}
        <select name="mode">
          {modes.map((mode) => (
            <option key={mode} value={mode}>
              {words.modes[mode]}
            </option>
          ))}
        </select>
      </label>
      <label>
        {words.currency}
        <select name="currency">
          {orAll && <option value="">{words.allCurrencies}</option>}
          {Object.keys(currencies).map((currency) => (
            <option key={currency} value={currency}>
              {currency}
            </option>
          ))}
        </select>
      </label>
    </>
  )
}

export function MerchantBalances({ page, file }: Props) {
  const words = merchantWordsOf(page.locale)
  const columns: Column<BalanceView>[] = [
    { header: words.mode, cell: (row) => words.modes[row.mode] },
    { header: words.currency, rowHeader: true, cell: (row) => row.currency },
    { header: words.balance, numeric: true, cell: (row) => showMoney(page, row.postedMinor, row.currency) },
    { header: words.held, numeric: true, cell: (row) => showMoney(page, row.heldMinor, row.currency) },
    {
      header: words.available,
      numeric: true,
      cell: (row) => showMoney(page, row.availableMinor, row.currency),
    },
  ]
  return (
    <Section id="balances" title={words.balances}>
      <Table
        page={page}
        columns={columns}
        rows={file.balances}
        rowKey={(row) => `${row.mode}-${row.currency}`}
      />
    </Section>
  )
}

/** Finance's statement form: a GET of the CSV, which the browser downloads. */
export function MerchantStatement({ page, file }: Props) {
  if (!consoleAllows(page, 'export')) return null
  const words = merchantWordsOf(page.locale)
  return (
    <Section id="statement" title={words.statement}>
      <form method="get" action={pathOf(file, 'statement.csv')} class="stack">
        <p id="statement-intro">{words.statementIntro}</p>
        <ModeAndCurrency page={page} orAll />
        <label>
          {words.from}
          <input name="from" type="date" />
        </label>
        <label>
          {words.to}
          <input name="to" type="date" />
        </label>
        <button type="submit" aria-describedby="statement-intro">
          {words.downloadStatement}
        </button>
      </form>
    </Section>
  )
}

export type HelpStep = 'reset-totp' | 'invite-again'

/** The confirmation step of helping one person: a page of its own, reached from the members' tables. */
export const helpPath = (merchantId: string, step: HelpStep, email: string) =>
  `/console/merchants/${encodeURIComponent(merchantId)}/members/${step}?email=${encodeURIComponent(email)}`

/** Its members and the invitations nobody accepted; support's links to reset TOTP and invite again. */
export function MerchantMembers({ page, file }: Props) {
  const words = merchantWordsOf(page.locale)
  const helps = consoleAllows(page, 'members')
  const link = (step: HelpStep, email: string) => (
    <a
      href={helpPath(file.merchant.id, step, email)}
      aria-label={`${step === 'reset-totp' ? words.resetTotp : words.inviteAgain}: ${email}`}
    >
      {step === 'reset-totp' ? words.resetTotp : words.inviteAgain}
    </a>
  )
  const columns: Column<MerchantMemberSummary>[] = [
    { header: words.email, rowHeader: true, cell: (member) => member.email },
    { header: words.name, cell: (member) => member.name },
    { header: words.role, cell: (member) => member.role },
    { header: words.enrolled, cell: (member) => (member.enrolled ? words.yes : words.no) },
    { header: words.created, cell: (member) => showInstant(page, member.createdAtUs) },
  ]
  const help: Column<MerchantMemberSummary> = {
    header: words.help,
    cell: (member) => (
      <>
        {link('reset-totp', member.email)} · {link('invite-again', member.email)}
      </>
    ),
  }
  return (
    <Section id="members" title={words.members}>
      <Table
        page={page}
        columns={helps ? [...columns, help] : columns}
        rows={file.members}
        rowKey={(member) => member.id}
      />
      <h3>{words.invitationsWaiting}</h3>
      <Table
        page={page}
        columns={[
          { header: words.email, rowHeader: true, cell: (row) => row.email },
          { header: words.role, cell: (row) => row.role },
          {
            header: words.expires,
            cell: (row) =>
              row.expired
                ? words.expired(showInstant(page, row.expiresAtUs))
                : showInstant(page, row.expiresAtUs),
          },
          ...(helps
            ? [{ header: words.help, cell: (row: { email: string }) => link('invite-again', row.email) }]
            : []),
        ]}
        rows={file.invitations}
        rowKey={(row) => row.email}
        empty={words.invitationsNone}
      />
    </Section>
  )
}

/** The merchant's own audit log, newest first: the platform's changes to it among its members'. */
export function MerchantAudit({ page, file }: Props) {
  const words = merchantWordsOf(page.locale)
  const columns: Column<AuditEntry>[] = [
    { header: words.when, cell: (entry) => showInstant(page, entry.atUs) },
    { header: words.who, cell: (entry) => entry.actorLabel },
    { header: words.action, cell: (entry) => <code>{entry.action}</code> },
    { header: words.target, cell: (entry) => entry.target },
    { header: words.before, cell: (entry) => entry.before && <code>{entry.before}</code> },
    { header: words.after, cell: (entry) => entry.after && <code>{entry.after}</code> },
  ]
  return (
    <Section id="audit" title={words.audit}>
      <Table page={page} columns={columns} rows={file.audit} rowKey={(entry) => entry.id} />
    </Section>
  )
}

/** Its own fee rows, as the CLI's `fees list` gives them; finance's form sets one. */
export function MerchantFees({ page, file }: Props) {
  const words = merchantWordsOf(page.locale)
  const fixed = (row: FeeRow) => {
    const currency = countries[row.country as keyof typeof countries]
    return currency ? showMoney(page, row.additionalFeeMinor, currency) : String(row.additionalFeeMinor)
  }
  const columns: Column<FeeRow>[] = [
    { header: words.kind, rowHeader: true, cell: (row) => row.kind },
    { header: words.channel, cell: (row) => row.channel },
    { header: words.country, cell: (row) => row.country },
    { header: words.percentage, numeric: true, cell: (row) => `${milliToPercentage(row.percentageMilli)} %` },
    { header: words.fixedFee, numeric: true, cell: fixed },
    {
      header: words.borneBy,
      cell: (row) => (row.supportedByAccount ? words.borneByMerchant : words.borneByCustomer),
    },
  ]
  return (
    <Section id="fees" title={words.fees}>
      <Table
        page={page}
        columns={columns}
        rows={file.fees.filter((row) => row.merchantId === file.merchant.id)}
        rowKey={(row) => `${row.kind}-${row.channel}-${row.country}`}
        empty={words.feesNone}
      />
      {consoleAllows(page, 'fees') && <FeeForm page={page} file={file} />}
    </Section>
  )
}

/** One fee row, keyed by kind, channel and country (`*` or blank for every one). */
function FeeForm({ page, file }: Props) {
  const words = merchantWordsOf(page.locale)
  return (
    <form method="post" action={pathOf(file, 'fees')} class="stack">
      <CsrfInput page={page} />
      <p id="fees-intro">{words.setFeeIntro}</p>
      <label>
        {words.kind}
        <select name="kind">
          {sideKindNames.map((kind) => (
            <option key={kind} value={kind}>
              {kind}
            </option>
          ))}
        </select>
      </label>
      <label>
        {words.channel}
        <input name="channel" value="*" required />
      </label>
      <label>
        {words.country}
        <select name="country">
          {['*', ...Object.keys(countries)].map((country) => (
            <option key={country} value={country}>
              {country}
            </option>
          ))}
        </select>
      </label>
      <label>
        {words.percentage}
        <input name="percentage" inputMode="decimal" required />
      </label>
      <label>
        {words.fixedFee}
        <input name="fixed" inputMode="decimal" value="0" />
      </label>
      <label>
        {words.borneBy}
        <select name="bearer">
          <option value="merchant">{words.borneByMerchant}</option>
          <option value="customer">{words.borneByCustomer}</option>
        </select>
      </label>
      <button type="submit" aria-describedby="fees-intro">
        {words.setFee}
      </button>
    </form>
  )
}
