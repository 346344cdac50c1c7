export { contractTurn, storeContract } from './contract.ts'
