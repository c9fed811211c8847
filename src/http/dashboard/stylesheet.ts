/** The dashboard's one stylesheet, served from Sika itself (`style-src 'self'`): no inline style anywhere. */
export const dashboardCss = `
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f5f6f8;color:#111827}
a{color:#1d4ed8}a:focus,button:focus,input:focus,select:focus,textarea:focus,summary:focus{outline:3px solid #2563eb;outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:.5rem 1rem;z-index:10}.skip:focus{left:.5rem}
header.top{display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;align-items:center;padding:.6rem 1.25rem;background:#111827;color:#f9fafb}
header.top a{color:#f9fafb}header.top .brand{font-weight:700;text-decoration:none;font-size:1.05rem}
header.top form{margin:0}header.top .who{font-size:.85rem;color:#d1d5db}
header.top button{background:transparent;color:#f9fafb;border:1px solid #9ca3af;border-radius:.4rem;padding:.2rem .7rem;font:inherit;cursor:pointer}
nav.main ul{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;margin:0;padding:0}
nav.main a[aria-current=page]{font-weight:700;text-decoration:underline}
.banner{margin:0;padding:.5rem 1.25rem;font-weight:600}
.banner-sandbox{background:#fef3c7;color:#78350f;border-bottom:2px solid #d97706}
.banner-live{background:#dcfce7;color:#14532d;border-bottom:2px solid #16a34a}
main{max-width:72rem;margin:0 auto;padding:1.25rem}
main.narrow{max-width:28rem}
h1{font-size:1.6rem;margin:.5rem 0 1rem}h2{font-size:1.2rem;margin:1.5rem 0 .5rem}
.card{background:#fff;border-radius:.6rem;padding:1rem 1.25rem;box-shadow:0 1px 2px rgba(0,0,0,.08);margin-bottom:1rem}
table{border-collapse:collapse;width:100%;background:#fff;margin-bottom:1rem}
caption{text-align:left;font-weight:600;padding:.3rem 0}
th,td{text-align:left;padding:.45rem .6rem;border-bottom:1px solid #e5e7eb;vertical-align:top;overflow-wrap:anywhere}
thead th{overflow-wrap:normal}
th{font-size:.85rem;color:#374151;background:#f9fafb}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.status{display:inline-block;padding:0 .5rem;border-radius:999px;background:#e5e7eb;font-weight:600;font-size:.85rem}
.status-succeeded{background:#d1fae5;color:#065f46}.status-failed,.status-error{background:#fee2e2;color:#991b1b}
.status-canceled{background:#fef3c7;color:#92400e}.status-pending{background:#dbeafe;color:#1e3a8a}
form.stack{display:grid;gap:.75rem}
form.search{display:grid;gap:.75rem;margin-bottom:1rem}form.search fieldset{display:flex;flex-wrap:wrap;gap:.75rem 1rem;align-items:end;border:1px solid #d1d5db;border-radius:.4rem;padding:.5rem 1rem .9rem;margin:0}form.search legend{font-weight:600;padding:0 .3rem}form.search button{justify-self:start}form.inline{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end}
label{display:grid;gap:.2rem;font-weight:600;font-size:.9rem}label.check{display:flex;gap:.5rem;align-items:center}
ul.row-errors{margin:0;padding-left:1rem}tr.faulty td,tr.faulty th{background:#fef2f2}
img.qr{width:12rem;height:12rem;background:#fff;padding:.5rem}
input,select,textarea{font:inherit;padding:.45rem .6rem;border:1px solid #6b7280;border-radius:.4rem;background:#fff;color:#111827}
button,.button{font:inherit;font-weight:600;padding:.5rem 1rem;border:0;border-radius:.4rem;background:#1d4ed8;color:#fff;cursor:pointer;text-decoration:none;display:inline-block}
button.secondary,.button.secondary{background:#fff;color:#1d4ed8;border:1px solid #1d4ed8}
button.danger{background:#b91c1c}
.notice{padding:.6rem .9rem;border-radius:.4rem;margin-bottom:1rem;background:#e0f2fe;color:#0c4a6e}
.error{padding:.6rem .9rem;border-radius:.4rem;margin-bottom:1rem;background:#fee2e2;color:#7f1d1d}
.secret{font-family:ui-monospace,Menlo,Consolas,monospace;background:#f3f4f6;padding:.5rem;border-radius:.3rem;word-break:break-all}
dl.record{display:grid;grid-template-columns:minmax(9rem,auto) 1fr;gap:.3rem 1rem;margin:0}dl.record dt{color:#4b5563}dl.record dd{margin:0;overflow-wrap:anywhere}
ol.codes{columns:2;font-family:ui-monospace,Menlo,Consolas,monospace}
.muted{color:#4b5563}.lang{margin-left:auto}
footer{max-width:72rem;margin:0 auto;padding:1rem 1.25rem;color:#4b5563;font-size:.85rem}
`
