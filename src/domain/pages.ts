/** A page of a list, newest first: page numbers from 1, and the total the list holds. */
export interface PageRequest {
  page: number
  perPage: number
}

export interface Page<T> {
  items: T[]
  total: number
}
