/** Where the embedded store lives when DATABASE_URL is not set: a SQLite file, created on first start. */
export const defaultDatabaseUrl = './data/sika.db'
