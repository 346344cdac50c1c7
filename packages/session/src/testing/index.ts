export { contractTurn, storeContract, type OpenedStore, type StoreContractHarness, type StoreSpace } from './contract.ts'
