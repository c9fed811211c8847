/** The payment page's one stylesheet, served from Sika itself (`style-src 'self'`): mobile first, no inline style. */
export const payCss = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f3f4f6;color:#111827}
a{color:#1d4ed8}a:focus,button:focus,input:focus{outline:3px solid #2563eb;outline-offset:2px}
header.top{display:flex;justify-content:space-between;align-items:center;padding:.6rem 1rem;background:#111827;color:#f9fafb}
header.top a{color:#f9fafb}header.top .brand{font-weight:700}
main{max-width:28rem;margin:0 auto;padding:1rem .75rem 2rem}
.card{background:#fff;border-radius:1rem;padding:1.25rem;box-shadow:0 1px 3px rgba(0,0,0,.12)}
.merchant{margin:0;color:#374151;font-weight:600}
h1{margin:.25rem 0 .75rem;font-size:1.5rem;overflow-wrap:anywhere}h1.paid{color:#065f46}h1.failed{color:#991b1b}
h2{font-size:1.05rem;margin:0 0 .25rem}
.amount{font-size:2rem;font-weight:700;margin:0 0 1rem;font-variant-numeric:tabular-nums}
.field{margin:0 0 1rem}.field label{display:block;font-weight:600}
input[type=text],input[type=tel]{width:100%;min-height:3rem;font-size:1.1rem;padding:.5rem .75rem;border:2px solid #6b7280;border-radius:.6rem}
input[aria-invalid=true],fieldset[aria-invalid=true]{border-color:#b91c1c}
fieldset{border:2px solid #d1d5db;border-radius:.6rem;margin:0 0 1rem;padding:.5rem .75rem}
legend{font-weight:600;padding:0 .25rem}
.choice{display:flex;align-items:center;gap:.6rem;min-height:2.75rem;font-size:1.05rem}
.choice input{width:1.4rem;height:1.4rem}
button,.button{display:block;width:100%;min-height:3rem;font-size:1.1rem;font-weight:600;border:0;border-radius:.75rem;cursor:pointer;background:#047857;color:#fff;text-align:center;text-decoration:none;padding:.7rem 1rem;margin-top:.5rem}
.button.secondary{background:#fff;color:#1f2937;border:2px solid #6b7280}
.hint{color:#4b5563;font-size:.9rem;margin:.25rem 0 .5rem}
.state{font-size:1.1rem}
.error{border:2px solid #b91c1c;background:#fef2f2;color:#7f1d1d;border-radius:.6rem;padding:.75rem;margin:0 0 1rem}
.error p{margin:0}
dl{display:grid;grid-template-columns:auto 1fr;gap:.4rem 1rem}dt{color:#4b5563}dd{margin:0;overflow-wrap:anywhere}
.note{margin:1rem 0 0;color:#374151;font-size:.9rem;text-align:center}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
`
